#include "ava/files/listing.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <strings.h>
#include <algorithm>
#include <cerrno>

#include "files/git.hpp"

namespace ava::files {
namespace {

namespace asio = boost::asio;

std::int64_t mtime_ms(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1000000;
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "dir";
  if (S_ISREG(mode)) return "file";
  return "other";
}

protocol::FileEntry describe(const ProjectRoot& root, int folder, std::string_view relative,
                             const char* name) {
  protocol::FileEntry entry{.name = name};
  struct stat info {};
  if (::fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
    entry.kind = "other";
    return entry;
  }
  entry.mtime_ms = mtime_ms(info);
  entry.size = static_cast<std::int64_t>(info.st_size);
  entry.kind = kind_of(info.st_mode);
  if (!S_ISLNK(info.st_mode)) return entry;
  entry.link = true;
  entry.kind = "link";
  // Followed only as far as the project goes.
  auto target = root.open_beneath(join(relative, name), O_PATH);
  struct stat followed {};
  if (target && ::fstat(target->get(), &followed) == 0) {
    entry.kind = kind_of(followed.st_mode);
    entry.size = static_cast<std::int64_t>(followed.st_size);
  }
  return entry;
}

Result<protocol::FileListing> read_folder(const ProjectRoot& root, const std::string& relative,
                                          std::size_t max_entries) {
  AVA_TRY(auto fd, root.open_beneath(relative, O_RDONLY | O_DIRECTORY));
  DIR* directory = ::fdopendir(fd.get());
  if (directory == nullptr) return base::fail_errno("read folder " + relative, errno);
  fd.release();
  protocol::FileListing listing{.path = relative};
  while (const dirent* item = ::readdir(directory)) {
    const std::string_view name = item->d_name;
    if (name == "." || name == ".." || name == ".git") continue;
    if (listing.entries.size() == max_entries) {
      listing.truncated = true;
      break;
    }
    listing.entries.push_back(describe(root, ::dirfd(directory), relative, item->d_name));
  }
  ::closedir(directory);
  return listing;
}

}  // namespace

std::string join(std::string_view folder, std::string_view name) {
  if (folder.empty()) return std::string(name);
  std::string path(folder);
  path += '/';
  path += name;
  return path;
}

asio::awaitable<Result<protocol::FileListing>> list_folder(const ProjectRoot& root,
                                                           std::string relative,
                                                           std::size_t max_entries) {
  auto listing = read_folder(root, relative, max_entries);
  if (!listing) co_return listing;
  std::vector<std::string> paths;
  paths.reserve(listing->entries.size());
  for (const auto& entry : listing->entries) {
    paths.push_back(join(relative, entry.name) + (entry.kind == "dir" ? "/" : ""));
  }
  // Asked even for an empty folder: the answer says whether ignores apply.
  const auto ignored = co_await git::ignored(root.folder(), paths);
  if (ignored) {
    listing->ignores_applied = true;
    std::vector<protocol::FileEntry> kept;
    kept.reserve(listing->entries.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (!ignored->contains(paths[i])) kept.push_back(std::move(listing->entries[i]));
    }
    listing->entries = std::move(kept);
  }
  std::sort(listing->entries.begin(), listing->entries.end(),
            [](const protocol::FileEntry& a, const protocol::FileEntry& b) {
              const bool a_dir = a.kind == "dir";
              const bool b_dir = b.kind == "dir";
              if (a_dir != b_dir) return a_dir;
              const int order = ::strcasecmp(a.name.c_str(), b.name.c_str());
              return order != 0 ? order < 0 : a.name < b.name;
            });
  co_return listing;
}

}  // namespace ava::files
