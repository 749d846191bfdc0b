// The bash sandbox against real commands: writes outside the project are
// refused, the project and the temp folders are writable, and with the
// network off a loopback connection is refused. ctest also runs these with
// AVA_SANDBOX_MAX_ABI=3 (the filesystem-only Landlock of Debian 12's kernel,
// network through the seccomp filter alone).
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ava/proc/run.hpp"
#include "ava/proc/sandbox.hpp"
#include "support/outside_temp_dir.hpp"
#include "support/run_awaitable.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using ava::proc::RunOptions;
using ava::proc::RunResult;
using ava::proc::Sandbox;
using ava::proc::SandboxMode;

namespace {

using BuildDir = ava::test::OutsideTempDir;

RunResult run_in(const Sandbox& sandbox, const std::string& script) {
  RunOptions options;
  options.spawn.argv = {"bash", "-c", script};
  options.spawn.sandbox = sandbox;
  auto result = ava::test::run_awaitable(ava::proc::run(std::move(options)));
  REQUIRE(result.has_value());
  return *result;
}

// A loopback listener the sandboxed command tries to reach.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    socklen_t size = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

bool landlock() { return ava::proc::sandbox_support().filesystem(); }

}  // namespace

TEST_CASE("workspace-write allows the project and /tmp and refuses the rest", "[proc][sandbox]") {
  if (!landlock()) {
    WARN("no Landlock here: " << ava::proc::sandbox_support().describe());
    return;
  }
  BuildDir project;
  BuildDir outside;
  if (!project.usable() || !outside.usable()) {
    WARN("no folder outside the temp folders to try the sandbox on");
    return;
  }
  const Sandbox sandbox{.mode = SandboxMode::workspace_write, .writable_roots = {project.path()}};
  const auto tmp_file = fs::temp_directory_path() / ("ava-sandbox-" + std::to_string(::getpid()));

  const auto inside = run_in(sandbox, "echo in > '" + (project.path() / "a.txt").string() +
                                          "' && mkdir '" + (project.path() / "sub").string() +
                                          "' && echo tmp > '" + tmp_file.string() + "'");
  CHECK(inside.status.code == 0);
  CHECK(fs::exists(project.path() / "a.txt"));
  CHECK(fs::is_directory(project.path() / "sub"));
  CHECK(fs::exists(tmp_file));
  fs::remove(tmp_file);

  const auto refused = run_in(sandbox, "echo out > '" + (outside.path() / "b.txt").string() + "'");
  CHECK(refused.status.code != 0);
  CHECK(refused.err.text.find("Permission denied") != std::string::npos);
  CHECK_FALSE(fs::exists(outside.path() / "b.txt"));

  // Nor by moving a file out of the project, or deleting outside it.
  { std::ofstream(outside.path() / "keep.txt") << "keep"; }
  const auto moved = run_in(sandbox, "mv '" + (project.path() / "a.txt").string() + "' '" +
                                         outside.path().string() + "/' ; rm -f '" +
                                         (outside.path() / "keep.txt").string() + "'");
  CHECK(fs::exists(project.path() / "a.txt"));
  CHECK(fs::exists(outside.path() / "keep.txt"));
  CHECK_FALSE(fs::exists(outside.path() / "a.txt"));
  // Reading stays as the user may.
  CHECK(run_in(sandbox, "cat '" + (outside.path() / "keep.txt").string() + "'").out.text == "keep");
  // The device files commands write to all the time.
  CHECK(run_in(sandbox, "echo x > /dev/null").status.code == 0);
}

TEST_CASE("read-only refuses writes even in the project", "[proc][sandbox]") {
  if (!landlock()) return;
  BuildDir project;
  if (!project.usable()) return;
  const Sandbox sandbox{.mode = SandboxMode::read_only, .writable_roots = {project.path()}};
  const auto refused = run_in(sandbox, "echo x > '" + (project.path() / "a.txt").string() + "'");
  CHECK(refused.status.code != 0);
  CHECK_FALSE(fs::exists(project.path() / "a.txt"));
  CHECK(run_in(sandbox, "echo x > /dev/null && ls / > /dev/null").status.code == 0);
}

TEST_CASE("with the network off a loopback connection is refused, with it on it is made",
          "[proc][sandbox]") {
  if (!landlock()) return;
  ava::test::TempDir project;
  Listener listener;
  const auto connect = "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(listener.port());
  Sandbox sandbox{.mode = SandboxMode::workspace_write, .writable_roots = {project.path()}};
  const auto refused = run_in(sandbox, connect);
  CHECK(refused.status.code != 0);
  CHECK(run_in(sandbox, "echo still runs").out.text == "still runs\n");

  sandbox.network = true;
  CHECK(run_in(sandbox, connect).status.code == 0);
}

TEST_CASE("the writable folders are the roots and the temp folders, resolved", "[proc][sandbox]") {
  ava::test::TempDir project;
  const Sandbox sandbox{.mode = SandboxMode::workspace_write,
                        .writable_roots = {project.path(), project.path() / "missing"}};
  const auto folders = ava::proc::writable_folders(sandbox);
  CHECK(std::ranges::find(folders, fs::canonical(project.path())) != folders.end());
  CHECK(std::ranges::find(folders, fs::path("/tmp")) != folders.end());
  CHECK(std::ranges::find(folders, project.path() / "missing") == folders.end());
  CHECK(ava::proc::parse_sandbox_mode("workspace-write") == SandboxMode::workspace_write);
  CHECK(ava::proc::parse_sandbox_mode("read-only") == SandboxMode::read_only);
  CHECK(ava::proc::parse_sandbox_mode("off") == SandboxMode::off);
  CHECK_FALSE(ava::proc::parse_sandbox_mode("danger"));
}

TEST_CASE("without Landlock a sandboxed command is not started", "[proc][sandbox]") {
  if (landlock()) return;
  RunOptions options;
  options.spawn.argv = {"true"};
  options.spawn.sandbox.mode = SandboxMode::workspace_write;
  const auto result = ava::test::run_awaitable(ava::proc::run(std::move(options)));
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ava::ErrorCode::unsupported);
}
