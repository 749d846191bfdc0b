#pragma once

#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>

#include <map>

#include "ava/desktop/connection.hpp"
#include "ava/desktop/pdf_renderer.hpp"
#include "ava/desktop/rows_model.hpp"

namespace ava::desktop {

// The file panel's state (FilesPanel.qml): the selected project's files on
// the selected machine, through GET /api/projects/{id}/files… (docs/api.md,
// "Files"), so a remote project browses through its tunnel like a local one.
// The tree is kept as the listings of the folders opened, shown flattened
// (`rows`: id and path, name, kind, depth, expanded, link); the change stream
// reloads the folders and the preview it names. Images and PDFs are
// downloaded at the version their preview checked (409: reloaded) into a
// private folder that goes with the window; PDF pages are drawn by the
// ava-pdf-render helper (PdfRenderer), never on this thread.
// ava-pdf-render beside this program, or $AVA_PDF_RENDER.
QString default_pdf_helper();

class FileBrowser : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString projectId READ projectId NOTIFY projectChanged)
  Q_PROPERTY(ava::desktop::RowsModel* rows READ rows CONSTANT)
  Q_PROPERTY(QString error READ error NOTIFY rowsChanged)
  Q_PROPERTY(bool ignoresApplied READ ignoresApplied NOTIFY rowsChanged)
  Q_PROPERTY(QString selected READ selected NOTIFY previewChanged)
  // path, kind (text, image, pdf, binary), mediaType, size, version, text,
  // truncated, markdown, image (a file: URL of the image or the drawn PDF
  // page), page, pages; empty while nothing is chosen.
  Q_PROPERTY(QVariantMap preview READ preview NOTIFY previewChanged)
  Q_PROPERTY(QString previewError READ previewError NOTIFY previewChanged)
  Q_PROPERTY(bool previewBusy READ previewBusy NOTIFY previewChanged)
  // Quick open: [{path, positions}] for the last query, best first.
  Q_PROPERTY(QVariantList matches READ matches NOTIFY matchesChanged)
  // The change stream is open (its first "ready" came).
  Q_PROPERTY(bool watching READ watching NOTIFY watchingChanged)

 public:
  FileBrowser(Connection& connection, QString pdf_helper, QObject* parent = nullptr);

  QString projectId() const { return project_id_; }
  RowsModel* rows() { return &rows_; }
  QString error() const { return error_; }
  bool ignoresApplied() const { return ignores_applied_; }
  QString selected() const { return selected_; }
  QVariantMap preview() const { return preview_; }
  QString previewError() const { return preview_error_; }
  bool previewBusy() const { return preview_busy_; }
  QVariantList matches() const { return matches_; }
  bool watching() const { return watching_; }
  PdfRenderer& pdf() { return pdf_; }

  // The panel is shown for this project ("" when none): the tree reloads.
  void set_project(const QString& id);
  // Opened or closed: a closed panel holds no watch.
  Q_INVOKABLE void setActive(bool active);
  Q_INVOKABLE void toggle(const QString& folder);
  // Shows a file, opening the folders above it.
  Q_INVOKABLE void open(const QString& path);
  Q_INVOKABLE void search(const QString& query);
  Q_INVOKABLE void showPdfPage(int page);
  // After a reconnection (another machine, a restarted backend).
  void reload();

 signals:
  void projectChanged();
  void rowsChanged();
  void previewChanged();
  void matchesChanged();
  void watchingChanged();

 private:
  void load(const QString& folder);
  void rebuild_rows();
  void load_preview(const QString& path);
  void download(const QVariantMap& shown);
  void draw_pdf_page(const QString& pdf, int page);
  void open_watch();
  void close_watch();
  void on_watch_events(const std::vector<transport::SseEvent>& batch);
  QString files_path(const QString& route, const QString& query) const;

  Connection& connection_;
  PdfRenderer pdf_;
  QTemporaryDir cache_;  // downloaded images and PDFs, drawn pages; 0700, gone at exit
  RowsModel rows_;
  QString project_id_;
  bool active_ = false;
  int generation_ = 0;  // one per project switch: late answers are dropped
  std::map<QString, QJsonObject> listings_;
  QSet<QString> expanded_;
  QString error_;
  bool ignores_applied_ = false;
  QString selected_;
  QVariantMap preview_;
  QString preview_error_;
  bool preview_busy_ = false;
  int preview_generation_ = 0;
  QVariantList matches_;
  int search_generation_ = 0;
  SseStream* watch_ = nullptr;
  bool watching_ = false;
  bool resync_on_ready_ = false;  // the watch broke: what it missed is loaded again
  QTimer rewatch_;
  int downloads_ = 0;
};

}  // namespace ava::desktop
