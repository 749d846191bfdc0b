#include "ava/desktop/markdown.hpp"

#include <QDesktopServices>
#include <QGuiApplication>
#include <QPalette>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFragment>
#include <QUrl>
#include <vector>

namespace ava::desktop {

namespace {

constexpr qsizetype cache_limit = 2000;

// One change to the document, applied from the end so positions hold.
struct Edit {
  int position = 0;
  int length = 0;
  QTextCharFormat format;  // for an unsafe link: the format without the anchor
  QString image_alt;       // for an image: what it showed and where from
  QString image_source;
  bool image = false;
};

QTextCharFormat without_anchor(QTextCharFormat format) {
  format.setAnchor(false);
  format.clearProperty(QTextFormat::AnchorHref);
  format.clearProperty(QTextFormat::AnchorName);
  format.clearProperty(QTextFormat::TextUnderlineStyle);
  format.clearProperty(QTextFormat::FontUnderline);
  format.clearForeground();
  return format;
}

// The text format an image's replacement is written in: the image's, with
// everything that made it an image taken away.
QTextCharFormat text_format(const QTextCharFormat& image) {
  QTextCharFormat format;
  for (const int property :
       {int(QTextFormat::FontWeight), int(QTextFormat::FontItalic), int(QTextFormat::FontFamilies),
        int(QTextFormat::FontFixedPitch), int(QTextFormat::FontSizeAdjustment)}) {
    if (image.hasProperty(property)) format.setProperty(property, image.property(property));
  }
  return format;
}

void replace_image(QTextDocument& document, const Edit& edit) {
  QTextCursor cursor(&document);
  cursor.setPosition(edit.position);
  cursor.setPosition(edit.position + edit.length, QTextCursor::KeepAnchor);
  const QTextCharFormat plain = text_format(edit.format);
  cursor.insertText(QStringLiteral("[image: %1] ").arg(edit.image_alt), plain);
  if (is_openable_link(edit.image_source)) {
    QTextCharFormat link = plain;
    link.setAnchor(true);
    link.setAnchorHref(edit.image_source);
    link.setFontUnderline(true);
    link.setForeground(QGuiApplication::palette().link());  // as the importer colours links
    cursor.insertText(edit.image_source, link);
  } else {
    cursor.insertText(edit.image_source, plain);
  }
}

}  // namespace

bool is_openable_link(const QString& link) {
  // Strict parsing: no tolerance for what a lenient parser would repair.
  const QUrl url(link, QUrl::StrictMode);
  if (!url.isValid() || link.trimmed() != link) return false;
  for (const QChar c : link) {
    if (c.unicode() < 0x20 || c.unicode() == 0x7f) return false;
  }
  const QString scheme = url.scheme().toLower();
  if (scheme == QLatin1String("http") || scheme == QLatin1String("https"))
    return !url.host().isEmpty();
  return scheme == QLatin1String("mailto") && !url.path().isEmpty();
}

QString markdown_to_rich_text(const QString& markdown) {
  QTextDocument document;
  document.setMarkdown(markdown,
                       QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                       QTextDocument::MarkdownNoHTML));
  std::vector<Edit> edits;
  for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
    for (auto it = block.begin(); !it.atEnd(); ++it) {
      const QTextFragment fragment = it.fragment();
      if (!fragment.isValid()) continue;
      const QTextCharFormat format = fragment.charFormat();
      if (format.isImageFormat()) {
        // One object character per image; images side by side may share a fragment.
        const QTextImageFormat image = format.toImageFormat();
        for (int i = 0; i < fragment.length(); ++i) {
          edits.push_back({.position = fragment.position() + i,
                           .length = 1,
                           .format = format,
                           .image_alt = image.property(QTextFormat::ImageAltText).toString(),
                           .image_source = image.name(),
                           .image = true});
        }
      } else if (format.isAnchor() && !is_openable_link(format.anchorHref())) {
        edits.push_back({.position = fragment.position(),
                         .length = fragment.length(),
                         .format = without_anchor(format)});
      }
    }
  }
  for (auto edit = edits.rbegin(); edit != edits.rend(); ++edit) {
    if (edit->image) {
      replace_image(document, *edit);
    } else {
      QTextCursor cursor(&document);
      cursor.setPosition(edit->position);
      cursor.setPosition(edit->position + edit->length, QTextCursor::KeepAnchor);
      cursor.setCharFormat(edit->format);
    }
  }
  return QTextDocumentFragment(&document).toHtml();
}

QString Markdown::toRichText(const QString& markdown, bool cache) {
  if (!cache) return markdown_to_rich_text(markdown);
  if (const auto hit = cache_.constFind(markdown); hit != cache_.constEnd()) return *hit;
  QString html = markdown_to_rich_text(markdown);
  if (cache_.size() >= cache_limit) cache_.clear();
  cache_.insert(markdown, html);
  return html;
}

bool Markdown::open(const QString& link) const {
  if (!is_openable_link(link)) return false;
  return QDesktopServices::openUrl(QUrl(link, QUrl::StrictMode));
}

}  // namespace ava::desktop
