// The system ssh client as a transport, under Ava's host-key rules.
#include "ava/remote/openssh.hpp"

#include <stdlib.h>

#include "ava/base/base64.hpp"
#include "ava/base/private_file.hpp"
#include "ava/proc/run.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

// A scratch folder removed however the scan ends.
struct ScratchDir {
  fs::path path;
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

std::string joined_for_ssh(const std::vector<fs::path>& files) {
  std::string out;
  for (const auto& file : files) {
    // ssh splits this option at spaces; a path with one cannot be passed.
    if (file.string().find(' ') != std::string::npos) continue;
    out += (out.empty() ? "" : " ") + file.string();
  }
  return out;
}

std::string error_text(const proc::RunResult& run) {
  std::string text = run.err.text;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? run.status.describe() : text;
}

}  // namespace

std::vector<std::string> openssh_base_arguments(const OpenSshOptions& options) {
  const auto& target = options.target;
  std::vector<std::string> args{
      options.ssh_program, "-T", "-o",
      "BatchMode=yes",     "-o", "ConnectTimeout=" + std::to_string(options.timeout.count())};
  // ssh finds ~ through the password database, Ava through $HOME: name the
  // files Ava resolved, so both read the same ones.
  std::error_code ec;
  if (options.config_file && fs::is_regular_file(*options.config_file, ec)) {
    args.insert(args.end(), {"-F", options.config_file->string()});
  }
  if (!target.known_hosts_files.empty()) {
    args.insert(args.end(),
                {"-o", "UserKnownHostsFile=" + joined_for_ssh(target.known_hosts_files)});
  }
  for (const auto& identity : target.identity_files) {
    if (fs::is_regular_file(identity, ec)) args.insert(args.end(), {"-i", identity.string()});
  }
  if (options.destination.user) args.insert(args.end(), {"-l", *options.destination.user});
  if (options.destination.port) {
    args.insert(args.end(), {"-p", std::to_string(*options.destination.port)});
  }
  return args;
}

asio::awaitable<Result<HostKey>> openssh_verify_host(const OpenSshOptions& options) {
  char pattern[] = "/tmp/ava-ssh-scan-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) co_return base::fail_errno("mkdtemp", errno);
  ScratchDir scratch{pattern};
  fs::path offered = scratch.path / "known_hosts";

  // Sign in with nothing and forward nothing: the run only records the key
  // the host offers (accept-new into the scratch file), then fails to sign in.
  proc::RunOptions run;
  run.spawn.argv = openssh_base_arguments(options);
  for (const char* option :
       {"StrictHostKeyChecking=accept-new", "GlobalKnownHostsFile=/dev/null", "HashKnownHosts=no",
        "PubkeyAuthentication=no", "PasswordAuthentication=no", "KbdInteractiveAuthentication=no",
        "GSSAPIAuthentication=no", "HostbasedAuthentication=no", "ForwardAgent=no",
        "ClearAllForwardings=yes", "PermitLocalCommand=no", "UpdateHostKeys=no"}) {
    run.spawn.argv.insert(run.spawn.argv.end(), {"-o", option});
  }
  // The option given first wins in ssh: this one replaces the user's files.
  auto& argv = run.spawn.argv;
  bool replaced = false;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i + 1].starts_with("UserKnownHostsFile=")) {
      argv[i + 1] = "UserKnownHostsFile=" + offered.string();
      replaced = true;
    }
  }
  if (!replaced) argv.insert(argv.end(), {"-o", "UserKnownHostsFile=" + offered.string()});
  argv.insert(argv.end(), {"--", options.destination.host, "true"});
  run.timeout = options.timeout + std::chrono::seconds(5);
  AVA_CO_TRY(auto scan, co_await proc::run(std::move(run)));
  auto text = base::read_file_limited(offered, 1 << 20);
  if (!text || text->empty()) {
    co_return fail(ErrorCode::unavailable, "ssh could not reach " + to_string(options.destination) +
                                               ": " + error_text(scan));
  }
  // "name type base64": the first key line.
  std::string_view line = *text;
  line = line.substr(0, line.find('\n'));
  std::size_t first = line.find(' ');
  std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos)
    co_return fail(ErrorCode::protocol, "ssh recorded no host key");
  auto blob = base::base64_decode(line.substr(second + 1), 16 << 10);
  if (!blob) co_return fail(ErrorCode::protocol, "ssh recorded a malformed host key");
  AVA_CO_TRY(auto key, host_key_from_blob(std::move(*blob)));

  AVA_CO_TRY_VOID(verify_host_key(options.target, key, options.accept_host_key));
  co_return key;
}

asio::awaitable<Result<ExecResult>> openssh_exec(const OpenSshOptions& options, std::string command,
                                                 std::string input,
                                                 std::optional<std::chrono::seconds> timeout) {
  proc::RunOptions run;
  run.spawn.argv = openssh_base_arguments(options);
  run.spawn.argv.insert(run.spawn.argv.end(),
                        {"-o", "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=no"});
  for (const auto& option : options.run_options)
    run.spawn.argv.insert(run.spawn.argv.end(), {"-o", option});
  run.spawn.argv.insert(run.spawn.argv.end(), {"--", options.destination.host, std::move(command)});
  run.spawn.stdin_mode = proc::StdinMode::pipe;
  run.stdin_bytes = std::move(input);
  run.timeout = timeout.value_or(options.timeout + std::chrono::seconds(5));
  AVA_CO_TRY(auto done, co_await proc::run(std::move(run)));
  // 255 is ssh's own failure (connection, host key, sign-in), not the command's.
  if (done.timed_out) co_return fail(ErrorCode::timeout, "ssh timed out");
  if (done.status.signal == 0 && done.status.code == 255) {
    co_return fail(ErrorCode::unavailable, "ssh failed: " + error_text(done));
  }
  ExecResult result;
  result.exit_status = done.status.signal == 0 ? done.status.code : -1;
  result.out = std::move(done.out.text);
  result.err = std::move(done.err.text);
  co_return result;
}

}  // namespace ava::remote
