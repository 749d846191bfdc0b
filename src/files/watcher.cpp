#include "ava/files/watcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/files/listing.hpp"
#include "files/git.hpp"

namespace ava::files {
namespace {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);

constexpr std::uint32_t watched_events = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                         IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF |
                                         IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;

// The folders directly inside `relative`, but `.git`, read without
// following links.
std::vector<std::string> subfolders(const ProjectRoot& root, const std::string& relative) {
  std::vector<std::string> found;
  auto fd = root.open_beneath(relative, O_RDONLY | O_DIRECTORY);
  if (!fd) return found;
  DIR* directory = ::fdopendir(fd->get());
  if (directory == nullptr) return found;
  fd->release();
  while (const dirent* item = ::readdir(directory)) {
    const std::string_view name = item->d_name;
    if (item->d_type != DT_DIR || name == "." || name == ".." || name == ".git") continue;
    found.push_back(join(relative, name));
  }
  ::closedir(directory);
  return found;
}

std::string parent_of(const std::string& relative) {
  const auto slash = relative.rfind('/');
  return slash == std::string::npos ? std::string() : relative.substr(0, slash);
}

}  // namespace

Watcher::Watcher(ProjectRoot root, asio::posix::stream_descriptor inotify)
    : root_(std::move(root)), inotify_(std::move(inotify)) {}

Watcher::~Watcher() = default;

asio::awaitable<Result<std::unique_ptr<Watcher>>> Watcher::start(ProjectRoot root) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    if (errno == EMFILE) {
      co_return fail(ErrorCode::unavailable,
                     "this machine's limit of file watchers is reached "
                     "(fs.inotify.max_user_instances)");
    }
    co_return base::fail_errno("inotify_init1", errno);
  }
  asio::posix::stream_descriptor inotify(co_await asio::this_coro::executor, fd);
  std::unique_ptr<Watcher> watcher(new Watcher(std::move(root), std::move(inotify)));
  if (!watcher->add_watch("")) {
    co_return fail(ErrorCode::io,
                   "cannot watch the project's folder " + watcher->root_.folder().string());
  }
  co_await watcher->watch_trees(subfolders(watcher->root_, ""));
  co_return watcher;
}

bool Watcher::add_watch(const std::string& relative) {
  if (folders_.size() >= max_folders) {
    incomplete_ = true;
    return false;
  }
  // Opened beneath the project first, then watched through the descriptor:
  // a link never takes the watch outside.
  auto fd = root_.open_beneath(relative, O_PATH | O_DIRECTORY);
  if (!fd) return false;
  const std::string through = "/proc/self/fd/" + std::to_string(fd->get());
  const int wd = ::inotify_add_watch(inotify_.native_handle(), through.c_str(), watched_events);
  if (wd < 0) {
    if (errno == ENOSPC) incomplete_ = true;  // fs.inotify.max_user_watches
    return false;
  }
  folders_[wd] = relative;
  return true;
}

asio::awaitable<void> Watcher::watch_trees(std::vector<std::string> level) {
  // Level by level: one Git question per level, however many folders.
  while (!level.empty() && !incomplete_) {
    std::vector<std::string> asked;
    asked.reserve(level.size());
    for (const auto& folder : level) asked.push_back(folder + "/");
    const auto ignored = co_await git::ignored(root_.folder(), asked);
    std::vector<std::string> next;
    for (std::size_t i = 0; i < level.size(); ++i) {
      if (ignored && ignored->contains(asked[i])) continue;
      if (!add_watch(level[i])) continue;
      for (auto& below : subfolders(root_, level[i])) next.push_back(std::move(below));
    }
    level = std::move(next);
  }
}

bool Watcher::drain(protocol::FileChanges& changes, std::set<std::string>& seen,
                    std::vector<std::string>& created) {
  alignas(inotify_event) std::array<char, std::size_t{64} * 1024> buffer{};
  for (;;) {
    const ssize_t got = ::read(inotify_.native_handle(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno == EAGAIN;
    if (got == 0) return false;
    for (std::size_t at = 0; at + sizeof(inotify_event) <= static_cast<std::size_t>(got);) {
      inotify_event event{};
      std::memcpy(&event, buffer.data() + at, sizeof event);
      const char* name = buffer.data() + at + sizeof(inotify_event);
      at += sizeof(inotify_event) + event.len;
      if ((event.mask & IN_Q_OVERFLOW) != 0) {
        changes.overflow = true;
        continue;
      }
      const auto folder = folders_.find(event.wd);
      if (folder == folders_.end()) continue;
      std::string changed = folder->second;
      if ((event.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0) {
        if (!changed.empty()) changed = parent_of(changed);
      }
      if ((event.mask & IN_IGNORED) != 0) {
        folders_.erase(folder);  // the folder is gone; its parent reported it
        continue;
      }
      if ((event.mask & IN_ISDIR) != 0 && (event.mask & (IN_CREATE | IN_MOVED_TO)) != 0 &&
          event.len > 0) {
        const std::string_view entry(name, ::strnlen(name, event.len));
        if (entry != ".git") created.push_back(join(folder->second, entry));
      }
      if (seen.insert(changed).second) changes.dirs.push_back(changed);
    }
  }
}

asio::awaitable<Result<protocol::FileChanges>> Watcher::next(std::chrono::milliseconds timeout) {
  protocol::FileChanges changes;
  std::set<std::string> seen;
  std::vector<std::string> created;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(timeout);
  auto outcome = co_await (inotify_.async_wait(asio::posix::descriptor_base::wait_read, no_throw) ||
                           timer.async_wait(no_throw));
  if (outcome.index() == 1) co_return changes;
  if (!drain(changes, seen, created)) co_return fail(ErrorCode::io, "the file watch failed");
  // A burst (a checkout, a build) is reported once.
  timer.expires_after(settle);
  co_await timer.async_wait(no_throw);
  if (!drain(changes, seen, created)) co_return fail(ErrorCode::io, "the file watch failed");
  if (!created.empty()) co_await watch_trees(std::move(created));
  co_return changes;
}

}  // namespace ava::files
