#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ava/files/paths.hpp"
#include "support/temp_dir.hpp"

namespace ava::test {

// A project folder with a real Git repository: src/, docs/, an ignored
// build/ and *.log, a .git the listings never show.
class GitProject {
 public:
  GitProject() {
    write_file(dir_.path() / ".gitignore", "build/\n*.log\n!keep.log\n");
    write_file(dir_.path() / "src/main.cpp", "int main() {}\n");
    write_file(dir_.path() / "src/util/strings.hpp", "#pragma once\n");
    write_file(dir_.path() / "docs/README.md", "# Docs\n");
    write_file(dir_.path() / "build/out.o",
               "\x7f"
               "ELF");
    write_file(dir_.path() / "debug.log", "noise\n");
    write_file(dir_.path() / "keep.log", "kept\n");
    git("init -q");
  }
  const std::filesystem::path& path() const { return dir_.path(); }
  void git(const std::string& args) const {
    const std::string command =
        "git -C '" + dir_.path().string() + "' " + args + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  }
  files::ProjectRoot root() const { return files::ProjectRoot::open(dir_.path()).value(); }

 private:
  TempDir dir_;
};

}  // namespace ava::test
