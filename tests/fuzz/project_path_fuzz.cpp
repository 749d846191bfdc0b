// A project's file paths (ava::files): clean_relative on any input, then
// open_beneath and preview on a small project of its own: files, a folder,
// a FIFO, a link inside, and links out of it (absolute, relative, through a
// folder, to a sibling whose name starts with the project's).
//
// Checks: a cleaned path is canonical (no leading '/', no empty, "." or
// ".." part, cleaning it again changes nothing); whatever open_beneath opens
// lies strictly inside the project (the descriptor's real path, compared
// part by part); a preview never hangs on the FIFO and describes only
// regular files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "ava/files/paths.hpp"
#include "ava/files/preview.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

namespace fs = std::filesystem;

struct Project {
  fs::path base;
  fs::path root;  // canonical

  Project() {
    std::string name = (fs::temp_directory_path() / "ava-fuzz-project-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(name.data()) != nullptr);
    base = fs::canonical(name);
    root = base / "p";
    for (const auto& dir : {root / "src", base / "outside", base / "p2"})
      fs::create_directories(dir);
    for (const auto& file :
         {root / "a.txt", root / "src" / "main.cpp", base / "outside" / "s", base / "p2" / "s"}) {
      std::ofstream(file) << "x\n";
    }
    FUZZ_CHECK(::mkfifo((root / "fifo").c_str(), 0600) == 0);
    fs::create_symlink("src/main.cpp", root / "inside");
    fs::create_symlink(base / "outside", root / "abs");
    fs::create_symlink("../outside/s", root / "rel");
    fs::create_symlink("../p2", root / "sib");
    fs::create_symlink("..", root / "src" / "up");
  }
  ~Project() {
    std::error_code ignored;
    fs::remove_all(base, ignored);
  }
  Project(const Project&) = delete;
  Project& operator=(const Project&) = delete;
};

const Project& project() {
  static const Project instance;
  return instance;
}

void check_inside(int fd) {
  std::error_code error;
  const auto real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), error);
  FUZZ_CHECK(!error);
  const auto relative = real.lexically_relative(project().root);
  FUZZ_CHECK(!relative.empty());
  for (const auto& part : relative) FUZZ_CHECK(part != "..");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  const auto clean = ava::files::clean_relative(text);
  if (!clean) {
    FUZZ_CHECK(clean.error().code == ava::ErrorCode::invalid_argument);
    return 0;
  }
  FUZZ_CHECK(!clean->starts_with('/') && !clean->ends_with('/'));
  FUZZ_CHECK(clean->find("//") == std::string::npos);
  for (const auto& part : fs::path(*clean)) FUZZ_CHECK(part != "." && part != "..");
  FUZZ_CHECK(ava::files::clean_relative(*clean).value() == *clean);

  static const auto root = ava::files::ProjectRoot::open(project().root).value();
  if (auto fd = root.open_beneath(*clean, O_PATH)) check_inside(fd->get());
  if (auto shown = ava::files::preview(root, *clean)) {
    FUZZ_CHECK(shown->path == *clean);
    FUZZ_CHECK(shown->kind != "text" || shown->text.has_value());
  }
  return 0;
}
