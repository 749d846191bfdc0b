// An SSH connection on libssh2, driven by Asio: connect, host key, exec.
#include "ava/remote/ssh_session.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "remote/ssh_io.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;
constexpr auto as_result = asio::as_tuple(asio::use_awaitable);

void init_libssh2_once() {
  static std::once_flag once;
  std::call_once(once, [] { libssh2_init(0); });
}

// The algorithms libssh2 1.10 offers for host keys, strongest first.
constexpr std::string_view default_host_key_methods =
    "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,rsa-sha2-512,"
    "rsa-sha2-256,ssh-rsa";

// Types already in known_hosts come first, so the server is asked for the
// key that was accepted rather than another algorithm mistaken for a change.
std::string host_key_preference(const std::vector<std::string>& known,
                                const std::vector<std::string>& supported) {
  std::string out;
  auto add = [&](std::string_view name) {
    if (std::ranges::find(supported, name) == supported.end()) return;
    for (std::string_view taken = out; !taken.empty();) {
      std::size_t comma = taken.find(',');
      if (taken.substr(0, comma) == name) return;
      taken = comma == std::string_view::npos ? std::string_view{} : taken.substr(comma + 1);
    }
    out += (out.empty() ? "" : ",") + std::string(name);
  };
  for (const auto& type : known) {
    if (type == "ssh-rsa") {
      add("rsa-sha2-512");
      add("rsa-sha2-256");
    }
    add(type);
  }
  std::string_view rest = default_host_key_methods;
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    add(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
}

std::vector<std::filesystem::path> known_hosts_files(const SshTarget& target) {
  auto files = target.known_hosts_files;
  files.emplace_back("/etc/ssh/ssh_known_hosts");
  files.emplace_back("/etc/ssh/ssh_known_hosts2");
  return files;
}

asio::awaitable<Result<void>> open_tcp(SshSession::State& state, Clock::time_point deadline) {
  const auto& target = state.target;
  auto executor = state.socket.get_executor();
  tcp::resolver resolver(executor);
  asio::steady_timer watchdog(executor);
  watchdog.expires_at(deadline);
  bool timed_out = false;
  watchdog.async_wait([&](boost::system::error_code ec) {
    if (ec) return;  // cancelled when the connection is made: touches nothing
    timed_out = true;
    resolver.cancel();
    boost::system::error_code ignored;
    state.socket.close(ignored);
  });
  std::string where = target.host + ":" + std::to_string(target.port);
  auto [resolve_error, endpoints] =
      co_await resolver.async_resolve(target.host, std::to_string(target.port), as_result);
  if (resolve_error) {
    watchdog.cancel();
    co_return fail(timed_out ? ErrorCode::timeout : ErrorCode::unavailable,
                   "cannot resolve " + target.host + ": " + resolve_error.message());
  }
  auto [connect_error, endpoint] = co_await asio::async_connect(state.socket, endpoints, as_result);
  watchdog.cancel();
  if (timed_out) co_return fail(ErrorCode::timeout, "connecting to " + where + " timed out");
  if (connect_error) {
    co_return fail(ErrorCode::unavailable,
                   "cannot connect to " + where + ": " + connect_error.message());
  }
  boost::system::error_code ignored;
  state.socket.set_option(tcp::no_delay(true), ignored);
  co_return Result<void>{};
}

asio::awaitable<Result<void>> check_server_key(SshSession::State& state,
                                               const ConnectOptions& options) {
  std::size_t length = 0;
  int type = 0;
  const char* blob = libssh2_session_hostkey(state.session, &length, &type);
  if (blob == nullptr) co_return fail(ErrorCode::protocol, "the server sent no host key");
  AVA_CO_TRY(auto key, host_key_from_blob(std::string(blob, length)));
  AVA_CO_TRY_VOID(verify_host_key(state.target, key, options.accept_host_key));
  state.host_key = std::move(key);
  co_return Result<void>{};
}

// Frees a channel however the exec ends.
struct ChannelGuard {
  LIBSSH2_CHANNEL* channel = nullptr;
  ~ChannelGuard() {
    if (channel != nullptr) libssh2_channel_free(channel);
  }
};

Result<void> append_bounded(std::string& to, const char* data, std::size_t size, std::size_t limit,
                            std::string_view stream) {
  if (to.size() + size > limit) {
    return fail(ErrorCode::limit_exceeded, "the command's " + std::string(stream) + " passed " +
                                               std::to_string(limit) + " bytes");
  }
  to.append(data, size);
  return {};
}

}  // namespace

Result<void> verify_host_key(const SshTarget& target, const HostKey& key,
                             const AcceptHostKey& accept) {
  auto check = check_host_key(known_hosts_files(target), target.host, target.port, key);
  if (check.status == HostKeyStatus::unknown && accept &&
      accept(key, sha256_fingerprint(key.blob))) {
    if (target.known_hosts_files.empty()) {
      return fail(ErrorCode::invalid_argument,
                  "UserKnownHostsFile is none: there is nowhere to remember the accepted key");
    }
    AVA_TRY_VOID(add_known_host(target.known_hosts_files.front(), target.host, target.port, key));
    check.status = HostKeyStatus::known;
  }
  if (check.status != HostKeyStatus::known) {
    return fail(ErrorCode::permission_denied,
                describe_host_key_problem(target.host, target.port, key, check));
  }
  return {};
}

SshSession::State::~State() {
  if (session != nullptr) {
    // Best effort: a non-blocking disconnect that cannot send now is dropped
    // with the socket.
    libssh2_session_disconnect(session, "closing");
    libssh2_session_free(session);
  }
}

std::string last_error(const SshSession::State& state) {
  char* message = nullptr;
  libssh2_session_last_error(state.session, &message, nullptr, 0);
  return message != nullptr ? message : "unknown libssh2 error";
}

void notify_progress(SshSession::State& state) { state.progress.cancel(); }

asio::awaitable<Result<void>> wait_socket(SshSession::State& state, Clock::time_point deadline) {
  if (state.broken) co_return fail(ErrorCode::unavailable, "the SSH connection is closed");
  if (Clock::now() >= deadline) co_return fail(ErrorCode::timeout, "the SSH connection timed out");
  int directions = libssh2_session_block_directions(state.session);
  auto type = (directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0 ? tcp::socket::wait_write
                                                                 : tcp::socket::wait_read;
  asio::steady_timer timer(state.socket.get_executor());
  if (deadline == Clock::time_point::max()) {
    timer.expires_after(std::chrono::hours(24 * 365));
  } else {
    timer.expires_at(deadline);
  }
  auto woke = co_await (state.socket.async_wait(type, as_result) ||
                        state.progress.async_wait(as_result) || timer.async_wait(as_result));
  if (woke.index() == 2) co_return fail(ErrorCode::timeout, "the SSH connection timed out");
  if (woke.index() == 0) {
    auto [error] = std::get<0>(woke);
    if (error) {
      state.broken = true;
      co_return fail(ErrorCode::unavailable, "the SSH connection failed: " + error.message());
    }
  }
  co_return Result<void>{};
}

SshSession::SshSession(std::unique_ptr<State> state) : state_(std::move(state)) {}
SshSession::~SshSession() = default;

const SshTarget& SshSession::target() const { return state_->target; }
const HostKey& SshSession::host_key() const { return state_->host_key; }
const std::string& SshSession::signed_in_with() const { return state_->signed_in_with; }

asio::awaitable<Result<std::unique_ptr<SshSession>>> SshSession::connect(
    asio::any_io_executor executor, ConnectOptions options) {
  init_libssh2_once();
  const auto& target = options.target;
  if (target.proxy_jump || target.proxy_command) {
    co_return fail(ErrorCode::unsupported,
                   target.alias + " is reached through " +
                       (target.proxy_jump ? "ProxyJump " + *target.proxy_jump
                                          : "ProxyCommand " + *target.proxy_command) +
                       ", which libssh2 cannot follow: use this machine's openssh transport"
                       " (--transport openssh)");
  }
  auto state = std::make_unique<State>(executor);
  state->target = target;
  state->timeout =
      target.connect_timeout > 0 ? std::chrono::seconds(target.connect_timeout) : options.timeout;
  auto deadline = Clock::now() + state->timeout;
  AVA_CO_TRY_VOID(co_await open_tcp(*state, deadline));

  state->session = libssh2_session_init();
  if (state->session == nullptr) co_return fail(ErrorCode::internal, "libssh2_session_init failed");
  libssh2_session_set_blocking(state->session, 0);
  // Only names this libssh2 knows: its method_pref copies overlapping
  // memory when it drops an unknown one.
  std::vector<std::string> supported;
  const char** algorithms = nullptr;
  int count = libssh2_session_supported_algs(state->session, LIBSSH2_METHOD_HOSTKEY, &algorithms);
  for (int i = 0; i < count; ++i) supported.emplace_back(algorithms[i]);
  if (algorithms != nullptr) libssh2_free(state->session, static_cast<void*>(algorithms));
  auto preference = host_key_preference(
      known_key_types(known_hosts_files(target), target.host, target.port), supported);
  if (!preference.empty()) {
    libssh2_session_method_pref(state->session, LIBSSH2_METHOD_HOSTKEY, preference.c_str());
  }
  auto fd = state->socket.native_handle();
  AVA_CO_TRY(long handshake, co_await retry(*state, deadline, [&] {
               return libssh2_session_handshake(state->session, fd);
             }));
  if (handshake != 0) {
    co_return fail(ErrorCode::protocol, "SSH handshake with " + target.host + ":" +
                                            std::to_string(target.port) +
                                            " failed: " + last_error(*state));
  }
  AVA_CO_TRY_VOID(co_await check_server_key(*state, options));
  AVA_CO_TRY_VOID(co_await sign_in(*state, options, deadline));
  int interval = target.server_alive_interval > 0 ? target.server_alive_interval : 15;
  libssh2_keepalive_config(state->session, 1, static_cast<unsigned>(interval));
  co_return std::unique_ptr<SshSession>(new SshSession(std::move(state)));
}

asio::awaitable<Result<ExecResult>> SshSession::exec(std::string command, std::string input,
                                                     std::size_t limit) {
  State& state = *state_;
  auto deadline = Clock::now() + state.timeout;
  ChannelGuard guard;
  for (;;) {
    guard.channel = libssh2_channel_open_session(state.session);
    if (guard.channel != nullptr) break;
    if (libssh2_session_last_errno(state.session) != LIBSSH2_ERROR_EAGAIN) {
      co_return fail(ErrorCode::unavailable, "cannot open an SSH channel: " + last_error(state));
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
  LIBSSH2_CHANNEL* channel = guard.channel;
  AVA_CO_TRY(long started, co_await retry(state, deadline, [&] {
               return libssh2_channel_process_startup(channel, "exec", 4, command.data(),
                                                      static_cast<unsigned>(command.size()));
             }));
  if (started != 0)
    co_return fail(ErrorCode::unavailable,
                   "the server refused to run the command: " + last_error(state));
  std::size_t sent = 0;
  while (sent < input.size()) {
    AVA_CO_TRY(long written, co_await retry(state, deadline, [&] {
                 return libssh2_channel_write(channel, input.data() + sent, input.size() - sent);
               }));
    if (written < 0)
      co_return fail(ErrorCode::io, "writing the command's input: " + last_error(state));
    sent += static_cast<std::size_t>(written);
  }
  AVA_CO_TRY_VOID(
      co_await retry(state, deadline, [&] { return libssh2_channel_send_eof(channel); }));

  ExecResult result;
  char buffer[16384];
  for (;;) {
    bool read_any = false;
    for (int stream : {0, SSH_EXTENDED_DATA_STDERR}) {
      ssize_t n = libssh2_channel_read_ex(channel, stream, buffer, sizeof buffer);
      if (n > 0) {
        read_any = true;
        auto& to = stream == 0 ? result.out : result.err;
        AVA_CO_TRY_VOID(append_bounded(to, buffer, static_cast<std::size_t>(n), limit,
                                       stream == 0 ? "stdout" : "stderr"));
      } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
        co_return fail(ErrorCode::io, "reading the command's output: " + last_error(state));
      }
    }
    if (read_any) {
      notify_progress(state);
      continue;
    }
    if (libssh2_channel_eof(channel) != 0) break;
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
  AVA_CO_TRY_VOID(co_await retry(state, deadline, [&] { return libssh2_channel_close(channel); }));
  AVA_CO_TRY_VOID(
      co_await retry(state, deadline, [&] { return libssh2_channel_wait_closed(channel); }));
  result.exit_status = libssh2_channel_get_exit_status(channel);
  char* signal = nullptr;
  std::size_t signal_length = 0;
  libssh2_channel_get_exit_signal(channel, &signal, &signal_length, nullptr, nullptr, nullptr,
                                  nullptr);
  if (signal != nullptr) {
    result.exit_signal.assign(signal, signal_length);
    libssh2_free(state.session, signal);
  }
  co_return result;
}

}  // namespace ava::remote
