#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

// Memory notes (docs/workflows.md): Markdown files the agent and the user
// keep across conversations, one note each, with a one-line summary in the
// front matter. Only the index of summaries goes into the system prompt; a
// note's body is read on demand with the memory tool.
//   AVA_HOME/memory/<name>.md          the user's, in every project
//   <repo>/.ava/memory/<name>.md       the project's
// Forgetting moves a note to the folder's .attic/ (a soft delete).
namespace ava::prompts {

enum class MemoryScope { user, project };
std::string_view to_string(MemoryScope scope);
Result<MemoryScope> parse_memory_scope(std::string_view text);

struct MemoryPlaces {
  std::filesystem::path home;  // AVA_HOME; empty: no user notes
  std::filesystem::path cwd;   // the project's notes are at its repository root
};

struct MemoryNote {
  std::string name;  // the file's stem: 1-64 of a-z A-Z 0-9 . _ - (not starting with .)
  MemoryScope scope = MemoryScope::project;
  std::string summary;  // one line
  std::filesystem::path file;
  std::size_t bytes = 0;
};

// The folder a scope's notes live in (it may not exist).
std::filesystem::path memory_folder(const MemoryPlaces& places, MemoryScope scope);

// Every readable note, the user's first, each scope sorted by name. At most
// 200 per scope; a note larger than 64 KiB is listed without its summary.
std::vector<MemoryNote> list_memory(const MemoryPlaces& places);

// A note's body (without the front matter).
struct MemoryText {
  MemoryNote note;
  std::string body;
};
Result<MemoryText> read_memory(const MemoryPlaces& places, MemoryScope scope,
                               std::string_view name);

// Creates a note (already_exists if there is one: `replace` to overwrite it)
// or replaces one. The summary is one line of at most 200 bytes, the body at
// most 64 KiB. The folder and the file must not be symbolic links: a cloned
// repository's .ava/memory cannot point a write elsewhere.
struct MemoryWrite {
  std::string_view name;
  MemoryScope scope = MemoryScope::project;
  std::string_view summary;
  std::string_view body;
  bool replace = false;
};
Result<MemoryNote> write_memory(const MemoryPlaces& places, const MemoryWrite& write);

// Moves the note to <folder>/.attic/<name>.<unix-ms>.md; returns that path.
Result<std::filesystem::path> forget_memory(const MemoryPlaces& places, MemoryScope scope,
                                            std::string_view name);

// The index for the system prompt: one "- name (scope): summary" line per
// note, cut at `budget` bytes with a count of the notes left out. Empty for
// no notes.
std::string memory_index(const std::vector<MemoryNote>& notes,
                         std::size_t budget = std::size_t{4} * 1024);

}  // namespace ava::prompts
