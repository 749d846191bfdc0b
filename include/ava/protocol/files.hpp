#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ava/protocol/shape.hpp"

// A project's files through the API (docs/api.md, "Files"):
// GET /api/projects/{id}/files, .../preview, .../search, .../events.
namespace ava::protocol {

// One entry of a project's folder (GET /api/projects/{id}/files).
struct FileEntry {
  std::string name;
  std::string kind = "file";  // "file", "dir", "link" (leads outside or nowhere), "other"
  bool link = false;          // a symbolic link; kind is what it leads to inside the project
  std::int64_t size = 0;
  std::int64_t mtime_ms = 0;
};
template <>
struct Shape<FileEntry> {
  static constexpr std::string_view name = "FileEntry";
  static constexpr std::string_view doc = "One entry of a project's folder";
  static constexpr auto fields =
      std::tuple{field("name", &FileEntry::name),
                 field("kind", &FileEntry::kind, R"("file" | "dir" | "link" | "other")"),
                 field("link", &FileEntry::link), field("size", &FileEntry::size),
                 field("mtimeMs", &FileEntry::mtime_ms)};
};

// GET /api/projects/{id}/files?path=: one folder, folders first. `.git` and
// what Git ignores are left out (ignoresApplied: false when the project is
// not in a Git work tree, so nothing could be).
struct FileListing {
  std::string path;  // relative to the project, "" for its folder
  std::vector<FileEntry> entries;
  bool truncated = false;  // the folder holds more than the listing's bound
  bool ignores_applied = false;
};
template <>
struct Shape<FileListing> {
  static constexpr std::string_view name = "FileListing";
  static constexpr std::string_view doc = "GET /api/projects/{id}/files: one folder of the project";
  static constexpr auto fields =
      std::tuple{field("path", &FileListing::path), field("entries", &FileListing::entries),
                 field("truncated", &FileListing::truncated),
                 field("ignoresApplied", &FileListing::ignores_applied)};
};

// GET /api/projects/{id}/files/preview?path=: what a preview shows. The
// bytes themselves (images, PDFs) come from .../files/raw?path=&version=,
// which refuses with 409 when the file no longer has this version.
struct FilePreview {
  std::string path;
  std::string kind = "binary";  // "text", "image", "pdf", "binary"
  std::string media_type;
  std::int64_t size = 0;
  std::int64_t mtime_ms = 0;
  std::string version;              // opaque: changes whenever the content may have
  std::optional<std::string> text;  // kind "text": the content (its head when truncated)
  bool truncated = false;
};
template <>
struct Shape<FilePreview> {
  static constexpr std::string_view name = "FilePreview";
  static constexpr std::string_view doc = "GET /api/projects/{id}/files/preview: one file to show";
  static constexpr auto fields =
      std::tuple{field("path", &FilePreview::path),
                 field("kind", &FilePreview::kind, R"("text" | "image" | "pdf" | "binary")"),
                 field("mediaType", &FilePreview::media_type),
                 field("size", &FilePreview::size),
                 field("mtimeMs", &FilePreview::mtime_ms),
                 field("version", &FilePreview::version),
                 field("text", &FilePreview::text),
                 field("truncated", &FilePreview::truncated)};
};

// One answer of quick open: the path and the byte offsets of the query's
// characters in it (for highlighting).
struct FileMatch {
  std::string path;
  std::vector<std::int64_t> positions;
};
template <>
struct Shape<FileMatch> {
  static constexpr std::string_view name = "FileMatch";
  static constexpr std::string_view doc = "One file quick open found";
  static constexpr auto fields =
      std::tuple{field("path", &FileMatch::path), field("positions", &FileMatch::positions)};
};

// GET /api/projects/{id}/files/search?q=&limit=: the best matches first.
struct FileMatches {
  std::string query;
  std::vector<FileMatch> matches;
  std::int64_t searched = 0;  // how many files were looked at
  bool truncated = false;     // the project holds more files than one search looks at
};
template <>
struct Shape<FileMatches> {
  static constexpr std::string_view name = "FileMatches";
  static constexpr std::string_view doc = "GET /api/projects/{id}/files/search: quick open";
  static constexpr auto fields = std::tuple{
      field("query", &FileMatches::query), field("matches", &FileMatches::matches),
      field("searched", &FileMatches::searched), field("truncated", &FileMatches::truncated)};
};

// An event of GET /api/projects/{id}/files/events: folders whose entries
// changed (created, deleted, renamed, written). overflow: too much changed
// to say what; reload every folder shown.
struct FileChanges {
  std::vector<std::string> dirs;
  bool overflow = false;
};
template <>
struct Shape<FileChanges> {
  static constexpr std::string_view name = "FileChanges";
  static constexpr std::string_view doc =
      "An event of GET /api/projects/{id}/files/events: folders whose entries changed";
  static constexpr auto fields =
      std::tuple{field("dirs", &FileChanges::dirs), field("overflow", &FileChanges::overflow)};
};

// The first event of GET /api/projects/{id}/files/events: the watch is in
// place (changes from here on are reported).
struct FileWatchReady {
  std::int64_t folders = 0;  // folders watched
  bool incomplete = false;   // stopped at the bound: deeper changes may go unseen
};
template <>
struct Shape<FileWatchReady> {
  static constexpr std::string_view name = "FileWatchReady";
  static constexpr std::string_view doc =
      "The first event of GET /api/projects/{id}/files/events: the watch is in place";
  static constexpr auto fields = std::tuple{field("folders", &FileWatchReady::folders),
                                            field("incomplete", &FileWatchReady::incomplete)};
};

}  // namespace ava::protocol
