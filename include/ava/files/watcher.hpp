#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "ava/base/error.hpp"
#include "ava/files/paths.hpp"
#include "ava/protocol/files.hpp"

namespace ava::files {

// Watches a project's folders for changes (inotify), so a tree and a preview
// on screen follow the files. Every folder but `.git` and what Git ignores
// is watched, up to max_folders; folders created later are added as they
// appear. Use it from one strand.
class Watcher {
 public:
  static constexpr std::size_t max_folders = 4096;
  // How long a burst of changes is gathered into one report.
  static constexpr std::chrono::milliseconds settle{120};

  static boost::asio::awaitable<Result<std::unique_ptr<Watcher>>> start(ProjectRoot root);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // The folders whose entries changed since the last call (created,
  // deleted, moved or written files), gathered for `settle` after the
  // first; empty when `timeout` passes with no change. overflow: the kernel
  // dropped events, so any folder may have changed.
  boost::asio::awaitable<Result<protocol::FileChanges>> next(std::chrono::milliseconds timeout);

  std::size_t folders_watched() const { return folders_.size(); }
  // The watch stopped at max_folders: changes deeper may go unreported.
  bool incomplete() const { return incomplete_; }

 private:
  Watcher(ProjectRoot root, boost::asio::posix::stream_descriptor inotify);
  // Watches the folders of `level` and those under them that Git does not
  // ignore.
  boost::asio::awaitable<void> watch_trees(std::vector<std::string> level);
  bool add_watch(const std::string& relative);
  // Reads what the kernel has queued; false when the descriptor failed.
  bool drain(protocol::FileChanges& changes, std::set<std::string>& seen,
             std::vector<std::string>& created);

  ProjectRoot root_;
  boost::asio::posix::stream_descriptor inotify_;
  std::map<int, std::string> folders_;  // watch descriptor -> folder
  bool incomplete_ = false;
};

}  // namespace ava::files
