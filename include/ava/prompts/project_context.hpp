#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

// The instructions people keep for agents, layered (docs/workflows.md):
// every AGENTS.md (else CLAUDE.md) from the repository root down to the
// working directory, then the user's AVA_HOME/AGENTS.md, then the nearest
// uncommitted AGENTS.local.md (else CLAUDE.local.md), merged in that order:
// the later, the more specific to this person, the more weight.
namespace ava::prompts {

struct ContextFile {
  std::filesystem::path path;
  std::string scope;         // "project", "user" or "local"
  std::size_t bytes = 0;     // the file's size
  std::size_t included = 0;  // how much of it the model gets
};

struct ProjectContext {
  std::vector<ContextFile> files;  // in merge order
  std::string text;                // what goes into the system prompt; empty: none
  bool truncated() const {
    for (const auto& file : files)
      if (file.included < file.bytes) return true;
    return false;
  }
};

struct ContextPlaces {
  std::filesystem::path cwd;
  std::filesystem::path home;  // AVA_HOME; empty: no user-wide file
  // Every file together; over it, the files nearest the repository root
  // (the least specific) are cut first, each keeping its beginning.
  std::size_t budget = std::size_t{32} * 1024;
};

// The nearest folder with .git at or above `cwd`, else `cwd` (canonical).
std::filesystem::path repository_root(const std::filesystem::path& cwd);

ProjectContext load_project_context(const ContextPlaces& places);

}  // namespace ava::prompts
