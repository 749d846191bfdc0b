// The system ssh client as a machine's shell: commands, uploads and
// forwarded connections over one control master.
#include "ava/remote/openssh_shell.hpp"

#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <system_error>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "ava/base/private_file.hpp"
#include "ava/proc/spawn.hpp"
#include "ava/remote/probe.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
constexpr auto as_result = asio::as_tuple(asio::use_awaitable);

// Builds bigger than this are not sent through ssh's stdin.
constexpr std::size_t max_upload_bytes = std::size_t{1} << 30;

// One `ssh -W host:port`: its stdout is the far end's bytes, its stdin ours.
class OpenSshStream final : public MachineStream {
 public:
  OpenSshStream(const asio::any_io_executor& executor, proc::Child child)
      : pid_(child.pid),
        to_(executor, child.stdin_pipe.release()),
        from_(executor, child.stdout_pipe.release()) {}

  ~OpenSshStream() override {
    boost::system::error_code ignored;
    to_.close(ignored);
    from_.close(ignored);
    // Ends the forward (the control master stays) and collects the child.
    (void)proc::signal_group(pid_, SIGKILL);
    (void)proc::reap(pid_);
  }

  asio::awaitable<Result<std::size_t>> read_some(char* buffer, std::size_t size) override {
    auto [error, n] = co_await from_.async_read_some(asio::buffer(buffer, size), as_result);
    if (error == asio::error::eof) co_return std::size_t{0};
    if (error) co_return fail(ErrorCode::io, "ssh -W: " + error.message());
    co_return n;
  }

  asio::awaitable<Result<void>> write_all(std::string_view bytes) override {
    auto [error, n] = co_await asio::async_write(to_, asio::buffer(bytes), as_result);
    if (error) co_return fail(ErrorCode::io, "ssh -W: " + error.message());
    co_return Result<void>{};
  }

  asio::awaitable<Result<void>> send_eof() override {
    boost::system::error_code ignored;
    to_.close(ignored);
    co_return Result<void>{};
  }

 private:
  pid_t pid_;
  asio::posix::stream_descriptor to_;
  asio::posix::stream_descriptor from_;
};

}  // namespace

OpenSshShell::OpenSshShell(asio::any_io_executor executor, OpenSshOptions options,
                           fs::path control_dir)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      control_dir_(std::move(control_dir)) {
  // One destination per shell, so one fixed socket name (a %C hash would
  // need the same config to be found again by `-O exit`).
  options_.run_options.insert(
      options_.run_options.end(),
      {"ControlMaster=auto", "ControlPath=" + (control_dir_ / "cm").string(), "ControlPersist=60",
       "ServerAliveInterval=15", "ServerAliveCountMax=3"});
}

OpenSshShell::~OpenSshShell() { close(); }

asio::awaitable<Result<std::unique_ptr<OpenSshShell>>> OpenSshShell::open(
    asio::any_io_executor executor, OpenSshOptions options) {
  AVA_CO_TRY(auto key, co_await openssh_verify_host(options));
  std::string pattern = (fs::temp_directory_path() / "ava-ssh-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) co_return base::fail_errno("mkdtemp", errno);
  std::unique_ptr<OpenSshShell> shell(
      new OpenSshShell(std::move(executor), std::move(options), pattern));
  shell->host_key_ = std::move(key);
  // Signs in (and starts the control master) now, so a refusal is this
  // call's error rather than the first command's.
  AVA_CO_TRY(auto signed_in, co_await shell->exec("true"));
  if (signed_in.exit_status != 0) {
    co_return fail(ErrorCode::unavailable,
                   "ssh could not run a command on the machine: " + signed_in.err);
  }
  co_return shell;
}

asio::awaitable<Result<ExecResult>> OpenSshShell::exec(std::string command, std::string input,
                                                       std::size_t limit) {
  if (broken()) co_return fail(ErrorCode::unavailable, "the SSH connection is closed");
  auto done = co_await openssh_exec(options_, std::move(command), std::move(input));
  if (!done) {
    if (done.error().code == ErrorCode::unavailable) broken_ = true;
    co_return std::unexpected(std::move(done).error());
  }
  if (done->out.size() > limit || done->err.size() > limit) {
    co_return fail(ErrorCode::limit_exceeded,
                   "the command's output passed " + std::to_string(limit) + " bytes");
  }
  co_return std::move(*done);
}

asio::awaitable<Result<void>> OpenSshShell::upload(const fs::path& local, std::string remote_path,
                                                   int mode) {
  if (broken()) co_return fail(ErrorCode::unavailable, "the SSH connection is closed");
  AVA_CO_TRY(auto bytes, base::read_file_limited(local, max_upload_bytes));
  char octal[8];
  std::snprintf(octal, sizeof octal, "%o", static_cast<unsigned>(mode) & 07777U);
  const std::string quoted = shell_quote(remote_path);
  // Minutes for a large build on a slow link: about 256 KiB/s at the least.
  const auto timeout = options_.timeout + std::chrono::seconds(bytes.size() / (256 * 1024));
  auto done = co_await openssh_exec(
      options_, "umask 077 && cat > " + quoted + " && chmod " + octal + " " + quoted,
      std::move(bytes), timeout);
  if (!done) {
    if (done.error().code == ErrorCode::unavailable) broken_ = true;
    co_return std::unexpected(std::move(done).error());
  }
  if (done->exit_status != 0) {
    co_return fail(ErrorCode::io,
                   "writing " + remote_path + " on the machine failed: " + done->err);
  }
  co_return Result<void>{};
}

asio::awaitable<Result<std::unique_ptr<MachineStream>>> OpenSshShell::open_forward(
    std::string host, std::uint16_t port) {
  if (broken()) co_return fail(ErrorCode::unavailable, "the SSH connection is closed");
  proc::SpawnOptions spawn;
  spawn.argv = openssh_base_arguments(options_);
  spawn.argv.insert(spawn.argv.end(),
                    {"-o", "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=no"});
  for (const auto& option : options_.run_options)
    spawn.argv.insert(spawn.argv.end(), {"-o", option});
  spawn.argv.insert(spawn.argv.end(),
                    {"-W", host + ":" + std::to_string(port), "--", options_.destination.host});
  spawn.stdin_mode = proc::StdinMode::pipe;
  spawn.stdout_mode = proc::OutputMode::pipe;
  spawn.stderr_mode = proc::StderrMode::null;
  AVA_CO_TRY(auto child, proc::spawn(spawn));
  co_return std::unique_ptr<MachineStream>(
      std::make_unique<OpenSshStream>(executor_, std::move(child)));
}

// ssh's own ServerAliveInterval keeps the master's connection alive; a lost
// one shows in the next command.
Result<int> OpenSshShell::keepalive() { return 15; }

void OpenSshShell::close() {
  if (closed_) return;
  closed_ = true;
  // Stops the control master (it would otherwise idle out after a minute).
  proc::SpawnOptions stop;
  stop.argv = {options_.ssh_program,
               "-F",
               "/dev/null",
               "-o",
               "ControlPath=" + (control_dir_ / "cm").string(),
               "-O",
               "exit",
               "--",
               options_.destination.host};
  stop.stdout_mode = proc::OutputMode::null;
  stop.stderr_mode = proc::StderrMode::null;
  if (auto child = proc::spawn(stop)) (void)proc::reap(child->pid);
  std::error_code ignored;
  fs::remove_all(control_dir_, ignored);
}

}  // namespace ava::remote
