// The first-run panel's side of the Workbench: while the backend says no
// provider is configured (GET /api/models "needsSetup"), the local model
// servers it found, and saving one of them, or a key, as the default
// (PUT /api/settings/providers/{name} with "makeDefault").
#include <QJsonArray>
#include <QUrl>

#include "ava/desktop/workbench.hpp"
#include "desktop/reply_json.hpp"

namespace ava::desktop {

void Workbench::useDetectedServer(const QString& name, const QString& baseUrl,
                                  const QString& model) {
  if (model.isEmpty()) {
    setup_error_ = QStringLiteral("Choose a model first.");
    emit setupChanged();
    return;
  }
  save_default_provider(name, {{"baseUrl", baseUrl}, {"model", model}, {"makeDefault", true}});
}

void Workbench::saveProviderKey(const QString& provider, const QString& key) {
  const QString trimmed = key.trimmed();
  if (trimmed.isEmpty()) {
    setup_error_ = QStringLiteral("Paste the key first.");
    emit setupChanged();
    return;
  }
  // The backend checks the key's characters (a paste with a line break is
  // refused there, with the reason shown here).
  save_default_provider(provider, {{"apiKey", trimmed}, {"makeDefault", true}});
}

void Workbench::save_default_provider(const QString& name, const QJsonObject& update) {
  setup_busy_ = true;
  setup_error_.clear();
  emit setupChanged();
  const QString path = QStringLiteral("/api/settings/providers/%1")
                           .arg(QString::fromUtf8(QUrl::toPercentEncoding(name)));
  connection_.send("PUT", path, body_of(update), [this](const Reply& reply) {
    setup_busy_ = false;
    if (!reply.ok()) setup_error_ = error_of(reply);
    emit setupChanged();
    if (reply.ok()) load_settings();  // needsSetup turns false: the panel goes
  });
}

}  // namespace ava::desktop
