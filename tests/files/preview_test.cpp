// Previews: the kind of a file, its text within the bound, a version that
// follows its content; raw bytes within theirs.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "ava/files/preview.hpp"
#include "support/temp_dir.hpp"

using ava::files::preview;
using ava::files::read_raw;

TEST_CASE("a preview tells text, images, PDFs and other bytes apart", "[files]") {
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "notes.md", "# Title\nhé\n");
  ava::test::write_file(dir.path() / "pic.PNG", "\x89PNG\r\n");
  ava::test::write_file(dir.path() / "paper", "%PDF-1.7\n");
  ava::test::write_file(dir.path() / "blob.bin", std::string("a\0b", 3));
  ava::test::write_file(dir.path() / "latin1.txt", "caf\xe9");
  ava::test::write_file(dir.path() / "empty.txt", "");
  auto root = ava::files::ProjectRoot::open(dir.path()).value();

  auto text = preview(root, "notes.md");
  REQUIRE(text);
  CHECK(text->kind == "text");
  CHECK(text->text == "# Title\nhé\n");
  CHECK(!text->truncated);
  CHECK(text->size == 12);
  CHECK(text->version.starts_with("sha256-"));
  CHECK(preview(root, "pic.PNG")->kind == "image");
  CHECK(preview(root, "pic.PNG")->media_type == "image/png");
  CHECK(!preview(root, "pic.PNG")->text);
  CHECK(preview(root, "paper")->kind == "pdf");
  CHECK(preview(root, "blob.bin")->kind == "binary");
  CHECK(preview(root, "latin1.txt")->kind == "binary");
  CHECK(preview(root, "empty.txt")->kind == "text");
}

TEST_CASE("a long text is cut at a character, and its version follows its content", "[files]") {
  ava::test::TempDir dir;
  // 'é' is two bytes: a cut at 5 bytes falls inside the third one.
  ava::test::write_file(dir.path() / "long.txt", "ééééé");
  auto root = ava::files::ProjectRoot::open(dir.path()).value();
  auto cut = preview(root, "long.txt", 5);
  REQUIRE(cut);
  CHECK(cut->kind == "text");
  CHECK(cut->text == "éé");
  CHECK(cut->truncated);

  const auto before = preview(root, "long.txt")->version;
  CHECK(preview(root, "long.txt")->version == before);
  ava::test::write_file(dir.path() / "long.txt", "changed");
  CHECK(preview(root, "long.txt")->version != before);
}

TEST_CASE("folders, FIFOs and files past the bound are refused without hanging", "[files]") {
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "folder/a.txt", "a");
  ava::test::write_file(dir.path() / "big.png", std::string(2000, 'x'));
  REQUIRE(::mkfifo((dir.path() / "pipe").c_str(), 0600) == 0);
  auto root = ava::files::ProjectRoot::open(dir.path()).value();
  CHECK(preview(root, "folder").error().code == ava::ErrorCode::invalid_argument);
  CHECK(preview(root, "pipe").error().code == ava::ErrorCode::invalid_argument);
  CHECK(read_raw(root, "pipe").error().code == ava::ErrorCode::invalid_argument);
  CHECK(read_raw(root, "big.png", 1000).error().code == ava::ErrorCode::limit_exceeded);
  auto raw = read_raw(root, "big.png");
  REQUIRE(raw);
  CHECK(raw->bytes.size() == 2000);
  CHECK(raw->kind == "image");
  CHECK(raw->version == preview(root, "big.png")->version);
}
