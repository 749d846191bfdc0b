#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include "ava/desktop/connection.hpp"

// The JSON of the backend's answers and of request bodies, for the
// Workbench's files.
namespace ava::desktop {

inline QJsonObject object_of(const QByteArray& body) {
  return QJsonDocument::fromJson(body).object();
}

inline QByteArray body_of(const QJsonObject& object) {
  return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The backend's error message, else the status.
inline QString error_of(const Reply& reply) {
  const auto message = object_of(reply.body).value("error").toObject().value("message").toString();
  return message.isEmpty() ? QStringLiteral("HTTP %1").arg(reply.status) : message;
}

}  // namespace ava::desktop
