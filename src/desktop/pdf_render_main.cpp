// ava-pdf-render: rasterizes PDF pages for the desktop's previews, in a
// process of its own, so a slow or hostile PDF (and QtPdf's document lock)
// never stalls the window: the desktop talks to it asynchronously and starts
// it again if it dies.
//
// One request per line on stdin, one answer per line on stdout, in order:
//   {"id": 7, "file": "/tmp/x.pdf", "page": 0, "width": 900, "out": "/tmp/x-0.png"}
//   {"id": 7, "ok": true, "pages": 12, "width": 900, "height": 1165}
//   {"id": 7, "ok": false, "error": "page 40 of 12"}
// It exits when stdin closes.
#include <QCoreApplication>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPdfDocument>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

constexpr std::size_t max_line = 64 * std::size_t{1024};
constexpr int min_width = 16;
constexpr int max_width = 4096;
constexpr qint64 max_pixels = qint64{4096} * 8192;

QString load_error(QPdfDocument::Error error) {
  switch (error) {
    case QPdfDocument::Error::FileNotFound: return QStringLiteral("the file is gone");
    case QPdfDocument::Error::InvalidFileFormat: return QStringLiteral("not a PDF");
    case QPdfDocument::Error::IncorrectPassword: return QStringLiteral("the PDF needs a password");
    case QPdfDocument::Error::UnsupportedSecurityScheme:
      return QStringLiteral("the PDF's protection is not supported");
    default: return QStringLiteral("the PDF could not be read");
  }
}

class Renderer {
 public:
  QJsonObject answer(const QJsonObject& request) {
    QJsonObject reply{{"id", request.value("id")}};
    const QString file = request.value("file").toString();
    const QString out = request.value("out").toString();
    const int page = request.value("page").toInt(-1);
    const int width = request.value("width").toInt(0);
    if (file.isEmpty() || out.isEmpty() || page < 0 || width < min_width || width > max_width) {
      return fail(reply, QStringLiteral("a request needs file, out, page >= 0 and width 16-4096"));
    }
    if (file != loaded_) {
      document_.close();
      loaded_.clear();
      const auto error = document_.load(file);
      if (error != QPdfDocument::Error::None) return fail(reply, load_error(error));
      loaded_ = file;
    }
    const int pages = document_.pageCount();
    reply.insert("pages", pages);
    if (page >= pages) return fail(reply, QStringLiteral("page %1 of %2").arg(page + 1).arg(pages));
    const QSizeF points = document_.pagePointSize(page);
    if (points.width() <= 0 || points.height() <= 0) return fail(reply, "the page has no size");
    const int height = static_cast<int>(width * points.height() / points.width());
    if (height < 1 || qint64{width} * height > max_pixels) {
      return fail(reply, QStringLiteral("the page's shape is too extreme to draw"));
    }
    QImage image = document_.render(page, QSize(width, height));
    if (image.isNull()) return fail(reply, QStringLiteral("the page could not be drawn"));
    // Pages are drawn with transparency; a preview shows them on paper.
    QImage paper(image.size(), QImage::Format_RGB32);
    paper.fill(Qt::white);
    {
      QImage converted = image.convertToFormat(QImage::Format_ARGB32_Premultiplied);
      for (int y = 0; y < paper.height(); ++y) {
        auto* target = reinterpret_cast<QRgb*>(paper.scanLine(y));
        const auto* source = reinterpret_cast<const QRgb*>(converted.constScanLine(y));
        for (int x = 0; x < paper.width(); ++x) {
          const int alpha = qAlpha(source[x]);
          const auto blend = [&](int channel) { return channel + (255 - alpha); };
          target[x] =
              qRgb(blend(qRed(source[x])), blend(qGreen(source[x])), blend(qBlue(source[x])));
        }
      }
    }
    if (!paper.save(out, "PNG")) return fail(reply, QStringLiteral("cannot write ") + out);
    reply.insert("ok", true);
    reply.insert("width", width);
    reply.insert("height", height);
    return reply;
  }

 private:
  static QJsonObject fail(QJsonObject reply, const QString& error) {
    reply.insert("ok", false);
    reply.insert("error", error);
    return reply;
  }
  QPdfDocument document_;
  QString loaded_;
};

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  Renderer renderer;
  std::string line;
  while (std::getline(std::cin, line)) {
    QJsonObject reply;
    if (line.size() > max_line) {
      reply = QJsonObject{{"ok", false}, {"error", "the request is longer than 64 KiB"}};
    } else {
      QJsonParseError error{};
      const auto request = QJsonDocument::fromJson(QByteArray::fromStdString(line), &error);
      reply = request.isObject()
                  ? renderer.answer(request.object())
                  : QJsonObject{{"ok", false}, {"error", "each line must be one JSON object"}};
    }
    const QByteArray text = QJsonDocument(reply).toJson(QJsonDocument::Compact);
    std::fwrite(text.constData(), 1, static_cast<std::size_t>(text.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  return 0;
}
