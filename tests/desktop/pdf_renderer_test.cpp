// PDF pages drawn by the real ava-pdf-render helper, and the renderer's
// recovery when its helper dies: the page in flight fails with a reason,
// the next request starts a new helper.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include <QImage>

#include "ava/desktop/pdf_renderer.hpp"
#include "desktop/backend_harness.hpp"

using ava::desktop::PdfRenderer;
using ava::test::spin_until;

namespace {

// Three 300x400 pages, a blue block on each.
std::string three_page_pdf() {
  std::vector<std::string> objects = {"<< /Type /Catalog /Pages 2 0 R >>",
                                      "<< /Type /Pages /Kids [3 0 R 5 0 R 7 0 R] /Count 3 >>"};
  for (int page = 0; page < 3; ++page) {
    objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Contents " +
                      std::to_string(4 + 2 * page) + " 0 R >>");
    const std::string stream = "0 0 1 rg 50 " + std::to_string(250 - 100 * page) + " 200 100 re f";
    objects.push_back("<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream +
                      "\nendstream");
  }
  std::string out = "%PDF-1.4\n";
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(out.size());
    out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const auto xref = out.size();
  out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (const auto offset : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
    out += line;
  }
  out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
         " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return out;
}

std::optional<PdfRenderer::Page> draw(PdfRenderer& renderer, const std::filesystem::path& pdf,
                                      int page, const std::filesystem::path& png) {
  std::optional<PdfRenderer::Page> drawn;
  renderer.render(QString::fromStdString(pdf.string()), page, 150,
                  QString::fromStdString(png.string()),
                  [&](const PdfRenderer::Page& answer) { drawn = answer; });
  spin_until([&] { return drawn.has_value(); });
  return drawn;
}

}  // namespace

TEST_CASE("the helper draws a PDF's pages and says why it cannot", "[desktop][pdf]") {
  ava::test::qt_app();  // before any QProcess
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "doc.pdf", three_page_pdf());
  ava::test::write_file(dir.path() / "fake.pdf", "not a pdf at all");
  PdfRenderer renderer(QStringLiteral(AVA_PDF_RENDER_BIN));

  auto second = draw(renderer, dir.path() / "doc.pdf", 1, dir.path() / "p1.png");
  REQUIRE(second);
  REQUIRE(second->ok);
  CHECK(second->pages == 3);
  CHECK(second->width == 150);
  CHECK(second->height == 200);
  const QImage image(QString::fromStdString((dir.path() / "p1.png").string()));
  REQUIRE(image.width() == 150);
  // The middle page's block covers the middle: blue there, white above it.
  CHECK(image.pixelColor(75, 100) == QColor(0, 0, 255));
  CHECK(image.pixelColor(75, 10) == QColor(255, 255, 255));

  auto past = draw(renderer, dir.path() / "doc.pdf", 7, dir.path() / "p7.png");
  REQUIRE(past);
  CHECK(!past->ok);
  CHECK(past->error == QStringLiteral("page 8 of 3"));
  auto fake = draw(renderer, dir.path() / "fake.pdf", 0, dir.path() / "f.png");
  REQUIRE(fake);
  CHECK(!fake->ok);
  CHECK(fake->error == QStringLiteral("not a PDF"));
  CHECK(renderer.starts() == 1);
}

TEST_CASE("a helper that dies costs one page and is started again", "[desktop][pdf]") {
  ava::test::qt_app();
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "doc.pdf", three_page_pdf());
  // Dies on its first request, as a crash inside PDFium would.
  const auto dying = dir.path() / "dying-helper";
  ava::test::write_file(dying, "#!/bin/sh\nread line\nexit 3\n");
  std::filesystem::permissions(dying, std::filesystem::perms::owner_all);
  PdfRenderer broken(QString::fromStdString(dying.string()));
  auto first = draw(broken, dir.path() / "doc.pdf", 0, dir.path() / "a.png");
  REQUIRE(first);
  CHECK(!first->ok);
  CHECK(first->error == QStringLiteral("the PDF helper stopped while drawing this page"));
  auto again = draw(broken, dir.path() / "doc.pdf", 0, dir.path() / "b.png");
  REQUIRE(again);
  CHECK(broken.starts() == 2);

  // The real helper killed between pages: the next page comes from a new one.
  PdfRenderer renderer(QStringLiteral(AVA_PDF_RENDER_BIN));
  REQUIRE(draw(renderer, dir.path() / "doc.pdf", 0, dir.path() / "c.png")->ok);
  const auto pid = renderer.pid();
  REQUIRE(pid > 0);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  REQUIRE(spin_until([&] { return renderer.pid() == 0; }));
  auto after = draw(renderer, dir.path() / "doc.pdf", 2, dir.path() / "d.png");
  REQUIRE(after);
  CHECK(after->ok);
  CHECK(renderer.starts() == 2);

  PdfRenderer missing(QStringLiteral("/nonexistent/ava-pdf-render"));
  auto none = draw(missing, dir.path() / "doc.pdf", 0, dir.path() / "e.png");
  REQUIRE(none);
  CHECK(!none->ok);
  CHECK(none->error.startsWith(QStringLiteral("the PDF helper did not start")));
}
