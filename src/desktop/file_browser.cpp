// The file panel's state (file_browser.hpp): the tree, the preview and the
// watch of one project, through the backend's file routes.
#include "ava/desktop/file_browser.hpp"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QUrl>

#include <functional>
#include <utility>

#include <QJsonDocument>

#include "desktop/reply_json.hpp"

namespace ava::desktop {
namespace {

constexpr int pdf_page_width = 900;
constexpr int rewatch_ms = 2000;

QString encoded(const QString& text) { return QString::fromLatin1(QUrl::toPercentEncoding(text)); }

QString parent_of(const QString& path) {
  const auto slash = path.lastIndexOf(QLatin1Char('/'));
  return slash < 0 ? QString() : path.left(slash);
}

QString joined(const QString& folder, const QString& name) {
  return folder.isEmpty() ? name : folder + QLatin1Char('/') + name;
}

bool is_markdown(const QString& path) {
  return path.endsWith(QLatin1String(".md"), Qt::CaseInsensitive) ||
         path.endsWith(QLatin1String(".markdown"), Qt::CaseInsensitive);
}

// The path as styled text, the characters the query matched in bold
// (positions are byte offsets into its UTF-8).
QString marked_path(const QJsonObject& match) {
  const QByteArray bytes = match.value("path").toString().toUtf8();
  QSet<int> marked;
  for (const auto& position : match.value("positions").toArray()) marked.insert(position.toInt());
  QString html;
  int start = 0;
  for (int i = 1; i <= bytes.size(); ++i) {
    if (i < bytes.size() && (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80) continue;
    const QString character = QString::fromUtf8(bytes.mid(start, i - start)).toHtmlEscaped();
    html += marked.contains(start) ? QStringLiteral("<b>") + character + QStringLiteral("</b>")
                                   : character;
    start = i;
  }
  return html;
}

}  // namespace

QString default_pdf_helper() {
  QString configured = qEnvironmentVariable("AVA_PDF_RENDER");
  if (!configured.isEmpty()) return configured;
  return QCoreApplication::applicationDirPath() + QStringLiteral("/ava-pdf-render");
}

FileBrowser::FileBrowser(Connection& connection, QString pdf_helper, QObject* parent)
    : QObject(parent),
      connection_(connection),
      pdf_(std::move(pdf_helper)),
      rows_({"id", "path", "name", "kind", "depth", "expanded", "link"}) {
  rewatch_.setSingleShot(true);
  connect(&rewatch_, &QTimer::timeout, this, &FileBrowser::open_watch);
}

QString FileBrowser::files_path(const QString& route, const QString& query) const {
  QString path = QStringLiteral("/api/projects/%1/files%2").arg(encoded(project_id_), route);
  if (!query.isEmpty()) path += QLatin1Char('?') + query;
  return path;
}

void FileBrowser::set_project(const QString& id) {
  if (id == project_id_) return;
  project_id_ = id;
  ++generation_;
  ++preview_generation_;
  listings_.clear();
  expanded_.clear();
  selected_.clear();
  preview_.clear();
  preview_error_.clear();
  preview_busy_ = false;
  error_.clear();
  matches_.clear();
  rebuild_rows();
  emit projectChanged();
  emit previewChanged();
  emit matchesChanged();
  close_watch();
  if (active_ && !project_id_.isEmpty()) {
    load(QString());
    open_watch();
  }
}

void FileBrowser::setActive(bool active) {
  if (active == active_) return;
  active_ = active;
  if (!active_) {
    close_watch();
    return;
  }
  if (project_id_.isEmpty()) return;
  if (listings_.empty()) load(QString());
  open_watch();
}

void FileBrowser::reload() {
  if (!active_ || project_id_.isEmpty()) return;
  ++generation_;
  if (listings_.empty()) load(QString());
  for (const auto& [folder, listing] : listings_) load(folder);
  if (!selected_.isEmpty()) load_preview(selected_);
  close_watch();
  open_watch();
}

void FileBrowser::load(const QString& folder) {
  const int generation = generation_;
  connection_.get(files_path({}, QStringLiteral("path=") + encoded(folder)),
                  [this, generation, folder](const Reply& reply) {
                    if (generation != generation_) return;
                    if (reply.ok()) {
                      const auto listing = object_of(reply.body);
                      listings_[folder] = listing;
                      if (folder.isEmpty()) {
                        error_.clear();
                        ignores_applied_ = listing.value("ignoresApplied").toBool();
                      }
                    } else if (folder.isEmpty()) {
                      error_ = error_of(reply);
                    } else {
                      // A folder that went away closes.
                      listings_.erase(folder);
                      expanded_.remove(folder);
                    }
                    rebuild_rows();
                  });
}

void FileBrowser::rebuild_rows() {
  QList<QVariantMap> rows;
  std::function<void(const QString&, int)> add = [&](const QString& folder, int depth) {
    const auto found = listings_.find(folder);
    if (found == listings_.end()) {
      if (depth > 0) {
        rows.push_back({{"id", folder + QStringLiteral("/\u2026")},
                        {"path", folder + QStringLiteral("/\u2026")},
                        {"name", QStringLiteral("Loading\u2026")},
                        {"kind", QStringLiteral("note")},
                        {"depth", depth},
                        {"expanded", false},
                        {"link", false}});
      }
      return;
    }
    for (const auto& value : found->second.value("entries").toArray()) {
      const auto entry = value.toObject();
      const QString path = joined(folder, entry.value("name").toString());
      const bool open =
          entry.value("kind").toString() == QLatin1String("dir") && expanded_.contains(path);
      rows.push_back({{"id", path},
                      {"path", path},
                      {"name", entry.value("name").toString()},
                      {"kind", entry.value("kind").toString()},
                      {"depth", depth},
                      {"expanded", open},
                      {"link", entry.value("link").toBool()}});
      if (open) add(path, depth + 1);
    }
  };
  add(QString(), 0);
  rows_.set_rows(rows);
  emit rowsChanged();
}

void FileBrowser::toggle(const QString& folder) {
  if (expanded_.remove(folder)) {
    rebuild_rows();
    return;
  }
  expanded_.insert(folder);
  if (!listings_.contains(folder)) load(folder);
  rebuild_rows();
}

void FileBrowser::open(const QString& path) {
  for (QString folder = parent_of(path); !folder.isEmpty(); folder = parent_of(folder)) {
    expanded_.insert(folder);
    if (!listings_.contains(folder)) load(folder);
  }
  rebuild_rows();
  selected_ = path;
  load_preview(path);
}

void FileBrowser::load_preview(const QString& path) {
  const int generation = ++preview_generation_;
  preview_busy_ = true;
  emit previewChanged();
  connection_.get(files_path(QStringLiteral("/preview"), QStringLiteral("path=") + encoded(path)),
                  [this, generation, path](const Reply& reply) {
                    if (generation != preview_generation_) return;
                    if (!reply.ok()) {
                      preview_.clear();
                      preview_error_ = reply.status == 404 ? QStringLiteral("%1 is gone.").arg(path)
                                                           : error_of(reply);
                      preview_busy_ = false;
                      emit previewChanged();
                      return;
                    }
                    auto shown = object_of(reply.body).toVariantMap();
                    shown.insert(QStringLiteral("markdown"), is_markdown(path));
                    const QString kind = shown.value(QStringLiteral("kind")).toString();
                    if (kind == QLatin1String("image") || kind == QLatin1String("pdf")) {
                      download(shown);
                      return;
                    }
                    preview_ = shown;
                    preview_error_.clear();
                    preview_busy_ = false;
                    emit previewChanged();
                  });
}

void FileBrowser::download(const QVariantMap& shown) {
  const int generation = preview_generation_;
  const QString path = shown.value(QStringLiteral("path")).toString();
  const QString version = shown.value(QStringLiteral("version")).toString();
  connection_.get(
      files_path(QStringLiteral("/raw"),
                 QStringLiteral("path=%1&version=%2").arg(encoded(path), encoded(version))),
      [this, generation, shown, path](const Reply& reply) {
        if (generation != preview_generation_) return;
        if (reply.status == 409) {  // changed since its preview: look again
          load_preview(path);
          return;
        }
        if (!reply.ok()) {
          preview_error_ = error_of(reply);
          preview_busy_ = false;
          emit previewChanged();
          return;
        }
        const bool pdf = shown.value(QStringLiteral("kind")).toString() == QLatin1String("pdf");
        const QString file = cache_.filePath(
            QStringLiteral("download-%1%2").arg(++downloads_).arg(pdf ? ".pdf" : ""));
        QFile out(file);
        if (!cache_.isValid() || !out.open(QIODevice::WriteOnly) ||
            out.write(reply.body) != reply.body.size()) {
          preview_error_ = QStringLiteral("cannot keep the preview in %1").arg(cache_.path());
          preview_busy_ = false;
          emit previewChanged();
          return;
        }
        out.close();
        // The previous preview's files are not shown any more.
        for (const auto& key : {QStringLiteral("localFile"), QStringLiteral("image")}) {
          const QString old = QUrl(preview_.value(key).toString()).toLocalFile();
          if (!old.isEmpty() && old.startsWith(cache_.path())) QFile::remove(old);
        }
        preview_ = shown;
        preview_error_.clear();
        preview_.insert(QStringLiteral("localFile"), QUrl::fromLocalFile(file).toString());
        if (!pdf) {
          preview_.insert(QStringLiteral("image"), QUrl::fromLocalFile(file).toString());
          preview_busy_ = false;
          emit previewChanged();
          return;
        }
        emit previewChanged();
        draw_pdf_page(file, 0);
      });
}

void FileBrowser::draw_pdf_page(const QString& pdf, int page) {
  const int generation = preview_generation_;
  const QString png = cache_.filePath(QStringLiteral("page-%1.png").arg(++downloads_));
  preview_busy_ = true;
  emit previewChanged();
  pdf_.render(
      pdf, page, pdf_page_width, png, [this, generation, page](const PdfRenderer::Page& drawn) {
        if (generation != preview_generation_) {
          QFile::remove(drawn.image);
          return;
        }
        preview_busy_ = false;
        if (!drawn.ok) {
          preview_error_ = drawn.error;
          emit previewChanged();
          return;
        }
        const QString old = QUrl(preview_.value(QStringLiteral("image")).toString()).toLocalFile();
        if (!old.isEmpty() && old.startsWith(cache_.path())) QFile::remove(old);
        preview_error_.clear();
        preview_.insert(QStringLiteral("image"), QUrl::fromLocalFile(drawn.image).toString());
        preview_.insert(QStringLiteral("page"), page);
        preview_.insert(QStringLiteral("pages"), drawn.pages);
        emit previewChanged();
      });
}

void FileBrowser::showPdfPage(int page) {
  const int pages = preview_.value(QStringLiteral("pages")).toInt();
  if (preview_.value(QStringLiteral("kind")).toString() != QLatin1String("pdf") || page < 0 ||
      page >= pages) {
    return;
  }
  draw_pdf_page(QUrl(preview_.value(QStringLiteral("localFile")).toString()).toLocalFile(), page);
}

void FileBrowser::search(const QString& query) {
  const int generation = ++search_generation_;
  if (project_id_.isEmpty()) return;
  connection_.get(
      files_path(QStringLiteral("/search"), QStringLiteral("q=%1&limit=50").arg(encoded(query))),
      [this, generation](const Reply& reply) {
        if (generation != search_generation_) return;
        matches_.clear();
        if (reply.ok()) {
          for (const auto& value : object_of(reply.body).value("matches").toArray()) {
            auto match = value.toObject().toVariantMap();
            match.insert(QStringLiteral("html"), marked_path(value.toObject()));
            matches_.push_back(match);
          }
        }
        emit matchesChanged();
      });
}

void FileBrowser::open_watch() {
  if (!active_ || project_id_.isEmpty() || watch_ != nullptr) return;
  watch_ = new SseStream(this);
  connect(watch_, &SseStream::events, this, &FileBrowser::on_watch_events);
  connect(watch_, &SseStream::ended, this, [this](int) {
    watch_->deleteLater();
    watch_ = nullptr;
    if (watching_) {
      watching_ = false;
      emit watchingChanged();
    }
    resync_on_ready_ = true;
    if (active_) rewatch_.start(rewatch_ms);
  });
  watch_->open(connection_.network(),
               connection_.request_for(files_path(QStringLiteral("/events"), {})));
}

void FileBrowser::close_watch() {
  rewatch_.stop();
  if (watch_ != nullptr) {
    watch_->close();
    watch_->deleteLater();
    watch_ = nullptr;
  }
  if (watching_) {
    watching_ = false;
    emit watchingChanged();
  }
}

void FileBrowser::on_watch_events(const std::vector<transport::SseEvent>& batch) {
  for (const auto& event : batch) {
    if (event.event == "ready") {
      watching_ = true;
      emit watchingChanged();
      if (std::exchange(resync_on_ready_, false)) {
        for (const auto& [folder, listing] : listings_) load(folder);
        if (!selected_.isEmpty()) load_preview(selected_);
      }
      continue;
    }
    if (event.event != "changes") continue;
    const auto changes = QJsonDocument::fromJson(QByteArray::fromStdString(event.data)).object();
    const bool overflow = changes.value("overflow").toBool();
    QSet<QString> dirs;
    for (const auto& dir : changes.value("dirs").toArray()) dirs.insert(dir.toString());
    QStringList reload;
    for (const auto& [folder, listing] : listings_) {
      if (overflow || dirs.contains(folder)) reload << folder;
    }
    for (const auto& folder : reload) load(folder);
    if (!selected_.isEmpty() && (overflow || dirs.contains(parent_of(selected_)))) {
      load_preview(selected_);
    }
  }
}

}  // namespace ava::desktop
