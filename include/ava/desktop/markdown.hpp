#pragma once

#include <QHash>
#include <QObject>
#include <QString>

namespace ava::desktop {

// Whether a link from model output may be opened: an http or https URL with
// a host, or a mailto address. Anything else (javascript:, file:, data:,
// custom schemes, relative paths) is never handed to the desktop.
bool is_openable_link(const QString& link);

// Assistant Markdown as Qt rich text for a Qt Quick TextEdit. Qt's own
// importer parses it (GitHub dialect) with raw HTML off, so tags show as the
// text they are; images become "[image: alt]" and their address as a link,
// so nothing is ever loaded; links that are not openable become plain text.
// The result is Qt's own HTML export of that document: it has no <img>, and
// every character of the input is escaped text.
QString markdown_to_rich_text(const QString& markdown);

// The QML face of the above (the singleton Ava.Markdown).
class Markdown : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

  // Rich text for an answer; cached unless it is still streaming.
  Q_INVOKABLE QString toRichText(const QString& markdown, bool cache = true);
  Q_INVOKABLE bool isOpenable(const QString& link) const { return is_openable_link(link); }
  // Opens an openable link in the desktop's browser or mail client; refuses
  // (false) anything else.
  Q_INVOKABLE bool open(const QString& link) const;

 private:
  QHash<QString, QString> cache_;
};

}  // namespace ava::desktop
