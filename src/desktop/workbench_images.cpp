// Images sent with input from the desktop's composer: checked when attached
// (imageInfo: the chip shows the reason a file is refused) and read again
// when sent, within the server's limits (docs/api.md, "Input").
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QUrl>

#include "ava/desktop/workbench.hpp"

namespace ava::desktop {
namespace {

// The server's limits: 5 MiB per image, and what fits one 8 MiB request
// once base64 has grown them by a third.
constexpr qint64 image_limit = qint64{5} * 1024 * 1024;
constexpr qint64 total_limit = qint64{11} * 512 * 1024;  // 5.5 MiB

QString local_path(const QString& path_or_url) {
  const QUrl url(path_or_url);
  return url.isLocalFile() ? url.toLocalFile() : path_or_url;
}

// The image type by its first bytes (the name says nothing for sure).
QString media_type_of(const QByteArray& head) {
  if (head.startsWith("\x89PNG\r\n\x1a\n")) return QStringLiteral("image/png");
  if (head.startsWith("\xff\xd8\xff")) return QStringLiteral("image/jpeg");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return QStringLiteral("image/gif");
  if (head.startsWith("RIFF") && head.mid(8, 4) == "WEBP") return QStringLiteral("image/webp");
  return {};
}

}  // namespace

QVariantMap Workbench::imageInfo(const QString& file) const {
  const QString path = local_path(file);
  const QFileInfo info(path);
  QVariantMap out{{"path", path},
                  {"name", info.fileName()},
                  {"size", info.size()},
                  {"url", QUrl::fromLocalFile(path).toString()},
                  {"ok", false}};
  QFile in(path);
  if (!info.isFile() || !in.open(QIODevice::ReadOnly)) {
    out.insert("error", QStringLiteral("%1 cannot be read.").arg(info.fileName()));
    return out;
  }
  if (info.size() > image_limit) {
    out.insert("error", QStringLiteral("%1 is over the 5 MiB limit.").arg(info.fileName()));
    return out;
  }
  const QString type = media_type_of(in.read(16));
  if (type.isEmpty()) {
    out.insert("error",
               QStringLiteral("%1 is not a png, jpeg, gif or webp image.").arg(info.fileName()));
    return out;
  }
  out.insert("mediaType", type);
  out.insert("ok", true);
  return out;
}

// The images as the input's attachments; an error names the first refused.
Result<QJsonArray> Workbench::read_attachments(const QStringList& images) const {
  QJsonArray attachments;
  qint64 total = 0;
  for (const auto& image : images) {
    const auto info = imageInfo(image);
    if (!info.value("ok").toBool()) {
      return base::fail(ErrorCode::invalid_argument, info.value("error").toString().toStdString());
    }
    QFile in(info.value("path").toString());
    if (!in.open(QIODevice::ReadOnly)) {
      return base::fail(ErrorCode::io,
                        info.value("name").toString().toStdString() + " cannot be read.");
    }
    const QByteArray bytes = in.read(image_limit + 1);
    total += bytes.size();
    if (bytes.size() > image_limit || media_type_of(bytes.left(16)).isEmpty()) {
      return base::fail(ErrorCode::conflict, info.value("name").toString().toStdString() +
                                                 " changed since it was attached.");
    }
    if (total > total_limit) {
      return base::fail(ErrorCode::limit_exceeded,
                        "The images together are over what one message can carry (5.5 MiB).");
    }
    attachments.append(QJsonObject{{"mediaType", media_type_of(bytes.left(16))},
                                   {"data", QString::fromLatin1(bytes.toBase64())}});
  }
  return attachments;
}

}  // namespace ava::desktop
