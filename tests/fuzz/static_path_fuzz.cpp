// The web UI's static file resolver (ava::httpd::resolve_static_file), on a
// small web root of its own: files of the bundle's types, a hidden file, a
// file of another type, a folder, a symlink inside the root, and symlinks
// to a file and a folder outside it (one beside the root whose name starts
// with the root's).
//
// The input is read twice: as a request target (through
// parse_request_target, as the server reads it) and as segments split at
// '/' (the resolver must hold on its own, whatever it is given). Checks: a
// success is a regular file of a served type whose path is canonical and
// strictly inside the canonical root.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ava/httpd/static_files.hpp"
#include "fuzz/fuzz_check.hpp"
#include "httpd/request_target.hpp"

namespace {

namespace fs = std::filesystem;

struct WebRoot {
  fs::path base;
  fs::path root;  // canonical

  WebRoot() {
    std::string name = (fs::temp_directory_path() / "ava-fuzz-static-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(name.data()) != nullptr);
    base = fs::canonical(name);
    root = base / "web";
    const fs::path outside = base / "outside";
    const fs::path sibling = base / "web2";  // shares the root's name as a prefix
    for (const auto& dir : {root, root / "assets", root / "sub", outside, sibling}) {
      fs::create_directories(dir);
    }
    for (const auto& file : {root / "index.html", root / "app.js", root / "assets" / "style.css",
                             root / "assets" / "logo.png", root / "sub" / "page.html",
                             root / ".hidden.html", root / "notes.bin", outside / "secret.html",
                             outside / "secret.js", sibling / "secret.css"}) {
      std::ofstream(file) << file.filename().string() << "\n";
    }
    fs::create_symlink(outside / "secret.html", root / "evil.html");
    fs::create_symlink(outside, root / "escape");
    fs::create_symlink(sibling, root / "sib");
    fs::create_symlink(root / "index.html", root / "assets" / "home.html");
    fs::create_symlink(base, root / "assets" / "up");
  }
  ~WebRoot() {
    std::error_code ignored;
    fs::remove_all(base, ignored);
  }
  WebRoot(const WebRoot&) = delete;
  WebRoot& operator=(const WebRoot&) = delete;
};

const WebRoot& web_root() {
  static const WebRoot instance;
  return instance;
}

void check_resolves(const std::vector<std::string>& segments) {
  const auto& web = web_root();
  const auto file = ava::httpd::resolve_static_file(web.root, segments);
  if (!file) {
    FUZZ_CHECK(file.error().code == ava::ErrorCode::not_found);
    return;
  }
  std::error_code error;
  FUZZ_CHECK(fs::is_regular_file(*file, error));
  FUZZ_CHECK(fs::canonical(*file, error) == *file);
  const auto relative = file->lexically_relative(web.root);
  FUZZ_CHECK(!relative.empty() && *relative.begin() != ".." && *relative.begin() != ".");
  for (const auto& part : relative) FUZZ_CHECK(part != "..");
  FUZZ_CHECK(ava::httpd::static_content_type(*file).has_value());
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> segments;
  if (text.empty()) return segments;
  while (true) {
    const auto slash = text.find('/');
    segments.emplace_back(text.substr(0, slash));
    if (slash == std::string_view::npos) return segments;
    text.remove_prefix(slash + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  if (const auto target = ava::httpd::parse_request_target(text)) check_resolves(target->segments);
  check_resolves(split(text));
  return 0;
}
