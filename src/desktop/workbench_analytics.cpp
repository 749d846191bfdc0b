// Analytics in the desktop (docs/analytics.md), through GET /api/analytics:
// the same summary the web page charts, for AnalyticsPage.qml to draw.
#include <QStringList>
#include <QUrl>

#include "ava/desktop/workbench.hpp"
#include "desktop/reply_json.hpp"

namespace ava::desktop {

void Workbench::loadAnalytics(const QVariantMap& filters) {
  QStringList query;
  for (const char* key : {"project", "model", "provider", "from", "to"}) {
    const QString value = filters.value(QString::fromLatin1(key)).toString();
    if (!value.isEmpty()) {
      query << QString::fromLatin1(key) + QLatin1Char('=') +
                   QString::fromUtf8(QUrl::toPercentEncoding(value));
    }
  }
  const QString path =
      QStringLiteral("/api/analytics") +
      (query.isEmpty() ? QString() : QLatin1Char('?') + query.join(QLatin1Char('&')));
  const int generation = ++analytics_generation_;
  analytics_loading_ = true;
  emit analyticsChanged();
  connection_.get(path, [this, generation](const Reply& reply) {
    if (generation != analytics_generation_) return;  // a newer filter is on its way
    analytics_loading_ = false;
    if (!reply.ok()) {
      analytics_error_ = error_of(reply);
    } else {
      analytics_error_.clear();
      analytics_ = object_of(reply.body).toVariantMap();
    }
    emit analyticsChanged();
  });
}

}  // namespace ava::desktop
