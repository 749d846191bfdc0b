// The checks that need no network: the home, the disk, the binaries, the
// backend and the sandbox.
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include "ava/base/version.hpp"
#include "ava/machine/backend.hpp"
#include "ava/machine/ownership.hpp"
#include "ava/proc/sandbox.hpp"
#include "doctor/checks.hpp"

namespace ava::doctor {
namespace {

constexpr std::uint64_t mib = 1024ull * 1024ull;

std::string size_text(std::uint64_t bytes) {
  if (bytes >= 1024 * mib)
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * mib));
  return fmt::format("{} MiB", bytes / mib);
}

// The sessions' size, counted up to a bound so a huge home stays quick.
std::uint64_t folder_size(const std::filesystem::path& folder) {
  std::uint64_t total = 0;
  std::error_code ec;
  std::size_t seen = 0;
  for (std::filesystem::recursive_directory_iterator it(folder, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (++seen > 200000) break;
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace

void check_home(const base::Home& home, std::vector<Finding>& out) {
  struct stat info {};
  const auto& root = home.root();
  if (::stat(root.c_str(), &info) != 0) {
    out.push_back({"home", Level::fail, fmt::format("{} cannot be read", root.string()),
                   "check the folder, or set AVA_HOME to one you own"});
    return;
  }
  if (info.st_uid != ::geteuid()) {
    out.push_back({"home", Level::fail,
                   fmt::format("{} belongs to uid {}, not you", root.string(), info.st_uid),
                   fmt::format("chown -R $USER {} (or set AVA_HOME)", root.string())});
  } else if ((info.st_mode & 077) != 0) {
    out.push_back({"home", Level::fail,
                   fmt::format("{} is open to others (mode {:o}); it holds keys and tokens",
                               root.string(), info.st_mode & 0777),
                   fmt::format("chmod 700 {}", root.string())});
  } else if (::access(root.c_str(), W_OK) != 0) {
    out.push_back({"home", Level::fail, fmt::format("{} is not writable", root.string()),
                   "make it writable, or set AVA_HOME to a folder you can write"});
  } else {
    out.push_back({"home", Level::ok, fmt::format("{} (private, 0700)", root.string()), ""});
  }
}

void check_disk(const base::Home& home, std::vector<Finding>& out) {
  struct statvfs fs {};
  if (::statvfs(home.root().c_str(), &fs) != 0) {
    out.push_back({"disk", Level::warn, "the free space could not be read", ""});
    return;
  }
  const std::uint64_t free = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  const std::uint64_t sessions = folder_size(home.sessions());
  const std::string summary =
      fmt::format("{} free; sessions use {}", size_text(free), size_text(sessions));
  if (free < 256 * mib) {
    out.push_back({"disk", Level::fail, summary,
                   "free some space: new inputs are refused when a session cannot be written"});
  } else if (free < 2048 * mib) {
    out.push_back({"disk", Level::warn, summary, "free some space soon"});
  } else {
    out.push_back({"disk", Level::ok, summary, ""});
  }
}

void check_backend(const base::Home& home, std::vector<Finding>& out) {
  const auto binary = machine::backend_binary();
  if (::access(binary.c_str(), X_OK) != 0) {
    out.push_back({"backend", Level::fail, fmt::format("{} is missing", binary.string()),
                   "reinstall Ava, or set AVA_BACKEND_BIN to ava-backend"});
  }
  if (auto running = machine::find_running_backend(home)) {
    if (running->version != base::version()) {
      out.push_back({"backend", Level::warn,
                     fmt::format("running version {} at {}, this ava is {}", running->version,
                                 running->url(), base::version()),
                     "ava backend restart --when-idle (waits for running turns)"});
    } else {
      out.push_back({"backend", Level::ok,
                     fmt::format("running at {} (pid {})", running->url(), running->pid), ""});
    }
    return;
  }
  auto owner = machine::probe_owner(home);
  if (owner && owner->has_value()) {
    out.push_back(
        {"backend", Level::info,
         fmt::format("pid {} serves this home in the foreground (ava --serve)", owner->value().pid),
         ""});
    return;
  }
  out.push_back({"backend", Level::info, "not running (started on demand by the desktop)",
                 "ava backend start, or ava service install to start it at login"});
}

void check_sandbox(std::vector<Finding>& out) {
  const auto& support = proc::sandbox_support();
  if (support.filesystem()) {
    out.push_back({"sandbox", Level::ok, support.describe(), ""});
  } else {
    out.push_back({"sandbox", Level::warn,
                   fmt::format("{}: sandboxed commands cannot run here", support.describe()),
                   "use a kernel with Landlock (5.13+, lsm=landlock), or set the sandbox to "
                   "off and approve commands yourself"});
  }
}

}  // namespace ava::doctor
