// Forwarded channels, SFTP uploads and keepalives on an SshSession.
#include <fcntl.h>
#include <libssh2_sftp.h>
#include <unistd.h>

#include <vector>

#include "ava/base/unique_fd.hpp"
#include "remote/ssh_io.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;

bool socket_error(long rc) {
  return rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV ||
         rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_TIMEOUT;
}

Error channel_error(SshSession::State& state, long rc, std::string_view what) {
  if (socket_error(rc)) state.broken = true;
  return Error{state.broken ? ErrorCode::unavailable : ErrorCode::io,
               std::string(what) + ": " + last_error(state)};
}

}  // namespace

SshChannel::Impl::~Impl() {
  if (channel != nullptr) libssh2_channel_free(channel);
}

SshChannel::SshChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SshChannel::~SshChannel() = default;

asio::awaitable<Result<std::size_t>> SshChannel::read_some(char* buffer, std::size_t size) {
  auto& state = *impl_->state;
  for (;;) {
    ssize_t n = libssh2_channel_read(impl_->channel, buffer, size);
    if (n > 0) {
      notify_progress(state);
      co_return static_cast<std::size_t>(n);
    }
    if (n == 0 && libssh2_channel_eof(impl_->channel) != 0) co_return std::size_t{0};
    if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
      co_return std::unexpected(channel_error(state, n, "reading a forwarded connection"));
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, no_deadline));
  }
}

asio::awaitable<Result<void>> SshChannel::write_all(std::string_view bytes) {
  auto& state = *impl_->state;
  while (!bytes.empty()) {
    AVA_CO_TRY(long n, co_await retry(state, no_deadline, [&] {
                 return libssh2_channel_write(impl_->channel, bytes.data(), bytes.size());
               }));
    if (n < 0) co_return std::unexpected(channel_error(state, n, "writing a forwarded connection"));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  co_return Result<void>{};
}

asio::awaitable<Result<void>> SshChannel::send_eof() {
  auto& state = *impl_->state;
  AVA_CO_TRY(long rc, co_await retry(state, Clock::now() + state.timeout,
                                     [&] { return libssh2_channel_send_eof(impl_->channel); }));
  if (rc < 0) co_return std::unexpected(channel_error(state, rc, "ending a forwarded connection"));
  co_return Result<void>{};
}

asio::awaitable<Result<std::unique_ptr<MachineStream>>> SshSession::open_forward(
    std::string host, std::uint16_t port) {
  State& state = *state_;
  auto deadline = Clock::now() + state.timeout;
  for (;;) {
    LIBSSH2_CHANNEL* channel =
        libssh2_channel_direct_tcpip_ex(state.session, host.c_str(), port, "127.0.0.1", 0);
    if (channel != nullptr) {
      notify_progress(state);
      auto impl = std::make_unique<SshChannel::Impl>();
      impl->state = &state;
      impl->channel = channel;
      co_return std::unique_ptr<MachineStream>(std::make_unique<SshChannel>(std::move(impl)));
    }
    int error = libssh2_session_last_errno(state.session);
    if (error != LIBSSH2_ERROR_EAGAIN) {
      co_return std::unexpected(channel_error(
          state, error, "the machine refused to forward to " + host + ":" + std::to_string(port)));
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
}

asio::awaitable<Result<void>> SshSession::upload(const std::filesystem::path& local,
                                                 std::string remote_path, int mode) {
  State& state = *state_;
  base::UniqueFd file(::open(local.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.valid()) co_return base::fail_errno("open " + local.string(), errno);
  // Minutes for a large build on a slow link: the deadline grows with each
  // chunk sent, so only a stalled transfer times out.
  auto deadline = Clock::now() + state.timeout;
  LIBSSH2_SFTP* sftp = nullptr;
  for (;;) {
    sftp = libssh2_sftp_init(state.session);
    if (sftp != nullptr) break;
    if (libssh2_session_last_errno(state.session) != LIBSSH2_ERROR_EAGAIN) {
      co_return fail(ErrorCode::unavailable, "the machine offers no SFTP: " + last_error(state));
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
  struct SftpGuard {
    LIBSSH2_SFTP* sftp;
    LIBSSH2_SFTP_HANDLE* handle = nullptr;
    ~SftpGuard() {
      if (handle != nullptr) libssh2_sftp_close_handle(handle);
      libssh2_sftp_shutdown(sftp);
    }
  } guard{sftp};
  for (;;) {
    guard.handle = libssh2_sftp_open_ex(
        sftp, remote_path.c_str(), static_cast<unsigned>(remote_path.size()),
        LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC, mode, LIBSSH2_SFTP_OPENFILE);
    if (guard.handle != nullptr) break;
    if (libssh2_session_last_errno(state.session) != LIBSSH2_ERROR_EAGAIN) {
      co_return fail(ErrorCode::io, "cannot create " + remote_path +
                                        " on the machine (SFTP error " +
                                        std::to_string(libssh2_sftp_last_error(sftp)) + ")");
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
  std::vector<char> chunk(256 * 1024);
  for (;;) {
    ssize_t got = ::read(file.get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) co_return base::fail_errno("read " + local.string(), errno);
    if (got == 0) break;
    std::string_view rest(chunk.data(), static_cast<std::size_t>(got));
    while (!rest.empty()) {
      deadline = Clock::now() + state.timeout;
      AVA_CO_TRY(long n, co_await retry(state, deadline, [&] {
                   return libssh2_sftp_write(guard.handle, rest.data(), rest.size());
                 }));
      if (n < 0) {
        co_return fail(ErrorCode::io,
                       "writing " + remote_path + " on the machine: " + last_error(state));
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  AVA_CO_TRY(long closed, co_await retry(state, Clock::now() + state.timeout,
                                         [&] { return libssh2_sftp_close_handle(guard.handle); }));
  guard.handle = nullptr;
  if (closed != 0)
    co_return fail(ErrorCode::io, "closing " + remote_path + ": " + last_error(state));
  co_return Result<void>{};
}

Result<int> SshSession::keepalive() {
  int next = 0;
  int rc = libssh2_keepalive_send(state_->session, &next);
  if (rc != 0 && rc != LIBSSH2_ERROR_EAGAIN) {
    if (socket_error(rc)) state_->broken = true;
    return fail(ErrorCode::unavailable, "SSH keepalive failed: " + last_error(*state_));
  }
  return next;
}

bool SshSession::broken() const { return state_->broken; }

void SshSession::close() {
  state_->broken = true;
  notify_progress(*state_);
}

}  // namespace ava::remote
