// `ava sandbox-exec`'s core: the exec'd command is inside the sandbox and
// gets the scrubbed environment; the arguments round-trip its flags.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>

#include "ava/proc/sandbox_exec.hpp"
#include "support/outside_temp_dir.hpp"

namespace fs = std::filesystem;
using ava::proc::Sandbox;
using ava::proc::SandboxMode;

namespace {

struct Ran {
  int code = -1;
  std::string out;
};

// exec_sandboxed in a child, its stdout read back.
Ran exec_in_child(const std::vector<std::string>& argv, const Sandbox& sandbox,
                  const std::vector<std::string>& keep = {}) {
  std::array<int, 2> pipe_fds{};
  REQUIRE(::pipe(pipe_fds.data()) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    ::close(pipe_fds[0]);
    (void)ava::proc::exec_sandboxed(argv, sandbox, keep);
    ::_exit(99);  // nothing ran
  }
  ::close(pipe_fds[1]);
  Ran ran;
  std::array<char, 4096> buffer{};
  for (ssize_t got = 0; (got = ::read(pipe_fds[0], buffer.data(), buffer.size())) > 0;) {
    ran.out.append(buffer.data(), static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ran.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ran;
}

}  // namespace

TEST_CASE("sandbox-exec drops secret-looking variables but the kept ones", "[proc][sandbox]") {
  ::setenv("AVA_EXEC_TEST_TOKEN", "leak", 1);
  ::setenv("AVA_EXEC_KEPT_TOKEN", "kept", 1);
  const auto ran =
      exec_in_child({"sh", "-c", "echo \"[$AVA_EXEC_TEST_TOKEN][$AVA_EXEC_KEPT_TOKEN]\""},
                    Sandbox{.mode = SandboxMode::off}, {"AVA_EXEC_KEPT_TOKEN"});
  ::unsetenv("AVA_EXEC_TEST_TOKEN");
  ::unsetenv("AVA_EXEC_KEPT_TOKEN");
  CHECK(ran.code == 0);
  CHECK(ran.out == "[][kept]\n");
  CHECK(exec_in_child({"ava-no-such-command"}, Sandbox{}).code == 99);
}

TEST_CASE("sandbox-exec runs the command inside the sandbox", "[proc][sandbox]") {
  if (!ava::proc::sandbox_support().filesystem()) {
    WARN("no Landlock here: " << ava::proc::sandbox_support().describe());
    return;
  }
  ava::test::OutsideTempDir project;
  ava::test::OutsideTempDir outside;
  if (!project.usable() || !outside.usable()) {
    WARN("no folder outside the temp folders to try the sandbox on");
    return;
  }
  const Sandbox sandbox{.mode = SandboxMode::workspace_write, .writable_roots = {project.path()}};
  const auto inside = project.path() / "in.txt";
  const auto escaped = outside.path() / "out.txt";
  const auto ran = exec_in_child(
      {"sh", "-c", "echo in > '" + inside.string() + "'; echo out > '" + escaped.string() + "'"},
      sandbox);
  CHECK(ran.code != 0);
  CHECK(fs::exists(inside));
  CHECK_FALSE(fs::exists(escaped));
}

TEST_CASE("sandbox-exec's arguments carry the sandbox and the command", "[proc]") {
  const Sandbox sandbox{
      .mode = SandboxMode::workspace_write, .writable_roots = {"/p", "/q"}, .network = true};
  CHECK(ava::proc::sandbox_exec_arguments(sandbox, {"GH_TOKEN"}, {"bash", "-c", "ls -- -x"}) ==
        std::vector<std::string>{"sandbox-exec", "--mode", "workspace-write", "--writable", "/p",
                                 "--writable", "/q", "--network", "--keep", "GH_TOKEN", "--",
                                 "bash", "-c", "ls -- -x"});
  CHECK(ava::proc::sandbox_exec_arguments(Sandbox{}, {}, {"true"}) ==
        std::vector<std::string>{"sandbox-exec", "--mode", "off", "--", "true"});
}
