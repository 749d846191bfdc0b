#include "ava/prompts/memory.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "ava/base/clock.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/utf8.hpp"
#include "ava/prompts/front_matter.hpp"
#include "ava/prompts/project_context.hpp"
#include "prompts/text.hpp"

namespace ava::prompts {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_name = 64;
constexpr std::size_t max_summary = 200;
constexpr std::size_t max_body = std::size_t{64} * 1024;
constexpr std::size_t max_notes = 200;  // per scope

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > max_name || name.front() == '.') return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

Result<void> check_name(std::string_view name) {
  if (valid_name(name)) return {};
  return fail(ErrorCode::invalid_argument,
              fmt::format("a memory note's name is 1-{} characters of a-z A-Z 0-9 . _ - and does "
                          "not start with a dot (got \"{}\")",
                          max_name, base::utf8::truncate(name, max_name)));
}

bool is_link(const fs::path& path) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(path, ec));
}

// A project's memory is a file of the repository: a link in its path could
// send a read or a write anywhere, so none is followed. The user's folder
// is theirs to link.
Result<void> check_no_links(const MemoryPlaces& places, MemoryScope scope, const fs::path& file) {
  if (scope == MemoryScope::project) {
    const fs::path ava = repository_root(places.cwd) / ".ava";
    for (const fs::path& part : {ava, ava / "memory"}) {
      if (is_link(part)) {
        return fail(ErrorCode::permission_denied,
                    part.string() + " is a symbolic link; project memory is not read through one");
      }
    }
  }
  if (is_link(file)) {
    return fail(ErrorCode::permission_denied,
                file.string() + " is a symbolic link; memory notes are plain files");
  }
  return {};
}

Result<fs::path> note_file(const MemoryPlaces& places, MemoryScope scope, std::string_view name) {
  AVA_TRY_VOID(check_name(name));
  if (scope == MemoryScope::user && places.home.empty()) {
    return fail(ErrorCode::invalid_argument, "no AVA_HOME: user memory is not available here");
  }
  fs::path file = memory_folder(places, scope) / (std::string(name) + ".md");
  AVA_TRY_VOID(check_no_links(places, scope, file));
  return file;
}

std::string one_line(std::string_view text) {
  std::string line(trim(text.substr(0, text.find('\n'))));
  return std::string(base::utf8::truncate(line, max_summary));
}

std::optional<MemoryNote> read_note(const fs::path& file, MemoryScope scope) {
  MemoryNote note{.name = file.stem().string(), .scope = scope, .file = file};
  std::size_t size = 0;
  auto text = read_head(file, max_body, size);
  if (!text) return std::nullopt;
  note.bytes = size;
  if (size <= max_body) {
    const FrontMatter front = parse_front_matter(*text);
    note.summary = one_line(front.field("description"));
    if (note.summary.empty()) note.summary = one_line(front.body(*text));
  }
  return note;
}

void collect(const MemoryPlaces& places, MemoryScope scope, std::vector<MemoryNote>& into) {
  const fs::path folder = memory_folder(places, scope);
  if (folder.empty() || !check_no_links(places, scope, folder / "x.md")) return;
  std::error_code ec;
  std::vector<MemoryNote> found;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const fs::path& path = entry.path();
    if (path.extension() != ".md" || !valid_name(path.stem().string())) continue;
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec)) continue;
    if (auto note = read_note(path, scope)) found.push_back(std::move(*note));
    if (found.size() >= max_notes) break;
  }
  std::ranges::sort(found, {}, &MemoryNote::name);
  for (auto& note : found) into.push_back(std::move(note));
}

}  // namespace

std::string_view to_string(MemoryScope scope) {
  return scope == MemoryScope::user ? "user" : "project";
}

Result<MemoryScope> parse_memory_scope(std::string_view text) {
  if (text == "user") return MemoryScope::user;
  if (text == "project") return MemoryScope::project;
  return fail(ErrorCode::invalid_argument, "a memory scope is \"user\" or \"project\"");
}

fs::path memory_folder(const MemoryPlaces& places, MemoryScope scope) {
  if (scope == MemoryScope::user) return places.home.empty() ? fs::path() : places.home / "memory";
  return repository_root(places.cwd) / ".ava" / "memory";
}

std::vector<MemoryNote> list_memory(const MemoryPlaces& places) {
  std::vector<MemoryNote> notes;
  if (!places.home.empty()) collect(places, MemoryScope::user, notes);
  collect(places, MemoryScope::project, notes);
  return notes;
}

Result<MemoryText> read_memory(const MemoryPlaces& places, MemoryScope scope,
                               std::string_view name) {
  AVA_TRY(const fs::path file, note_file(places, scope, name));
  std::size_t size = 0;
  auto text = read_head(file, max_body, size);
  if (!text) {
    return fail(ErrorCode::not_found,
                fmt::format("no {} memory note \"{}\"", to_string(scope), name));
  }
  auto note = read_note(file, scope);
  if (!note) return fail(ErrorCode::not_found, "cannot read " + file.string());
  const FrontMatter front = parse_front_matter(*text);
  return MemoryText{.note = std::move(*note), .body = std::string(front.body(*text))};
}

Result<MemoryNote> write_memory(const MemoryPlaces& places, const MemoryWrite& write) {
  AVA_TRY(const fs::path file, note_file(places, write.scope, write.name));
  const std::string summary(trim(write.summary));
  if (summary.empty() || summary.find_first_of("\r\n") != std::string::npos ||
      summary.size() > max_summary) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("a memory note's summary is one line of 1-{} bytes", max_summary));
  }
  if (write.body.size() > max_body) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("a memory note's body is at most {} bytes", max_body));
  }
  if (!base::utf8::valid(summary) || !base::utf8::valid(write.body)) {
    return fail(ErrorCode::invalid_argument, "a memory note is UTF-8 text");
  }
  std::error_code ec;
  if (!write.replace && fs::exists(fs::symlink_status(file, ec))) {
    return fail(ErrorCode::already_exists,
                fmt::format("{} memory note \"{}\" exists: update it, or choose another name",
                            to_string(write.scope), write.name));
  }
  fs::create_directories(file.parent_path(), ec);
  if (ec) return fail(ErrorCode::io, "cannot create " + file.parent_path().string());
  // The summary is quoted when YAML would read it otherwise.
  const bool quote = summary.find_first_of(":#'\"") != std::string::npos;
  std::string text = "---\ndescription: ";
  if (quote) {
    text += '"';
    for (const char c : summary) text += c == '"' ? '\'' : c;
    text += '"';
  } else {
    text += summary;
  }
  text += "\n---\n";
  text += write.body;
  if (!write.body.empty() && write.body.back() != '\n') text += '\n';
  AVA_TRY_VOID(base::write_private_file(file, text));
  return MemoryNote{.name = std::string(write.name),
                    .scope = write.scope,
                    .summary = summary,
                    .file = file,
                    .bytes = text.size()};
}

Result<fs::path> forget_memory(const MemoryPlaces& places, MemoryScope scope,
                               std::string_view name) {
  AVA_TRY(const fs::path file, note_file(places, scope, name));
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) {
    return fail(ErrorCode::not_found,
                fmt::format("no {} memory note \"{}\"", to_string(scope), name));
  }
  const fs::path attic = file.parent_path() / ".attic";
  if (is_link(attic)) {
    return fail(ErrorCode::permission_denied, attic.string() + " is a symbolic link");
  }
  fs::create_directories(attic, ec);
  if (ec) return fail(ErrorCode::io, "cannot create " + attic.string());
  const fs::path moved = attic / fmt::format("{}.{}.md", name, base::unix_ms_now());
  fs::rename(file, moved, ec);
  if (ec) return fail(ErrorCode::io, "cannot move " + file.string() + ": " + ec.message());
  return moved;
}

std::string memory_index(const std::vector<MemoryNote>& notes, std::size_t budget) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& note : notes) {
    std::string line = fmt::format("- {} ({}): {}\n", note.name, to_string(note.scope),
                                   note.summary.empty() ? "(no summary)" : note.summary);
    if (out.size() + line.size() > budget) break;
    out += line;
    ++shown;
  }
  if (shown < notes.size()) {
    out +=
        fmt::format("- ... and {} more (list them with the memory tool)\n", notes.size() - shown);
  }
  return out;
}

}  // namespace ava::prompts
