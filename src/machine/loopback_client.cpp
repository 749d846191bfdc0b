#include "ava/machine/loopback_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

namespace ava::machine {

Result<LoopbackReply> loopback_request(std::uint16_t port, std::string_view method,
                                       std::string_view path, std::string_view token,
                                       std::chrono::milliseconds timeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return base::fail_errno("socket", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  timeval tv{.tv_sec = static_cast<time_t>(timeout.count() / 1000),
             .tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return fail(ErrorCode::unavailable, "nothing listens on 127.0.0.1:" + std::to_string(port));
  }
  std::string request = std::string(method) + " " + std::string(path) +
                        " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                        "\r\nConnection: close\r\nContent-Length: 0\r\n";
  if (!token.empty()) request += "Authorization: Bearer " + std::string(token) + "\r\n";
  request += "\r\n";
  std::string_view pending = request;
  while (!pending.empty()) {
    const ssize_t sent = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return base::fail_errno("send", errno);
    pending.remove_prefix(static_cast<std::size_t>(sent));
  }
  std::string response;
  char buffer[8192];
  for (;;) {
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(ErrorCode::timeout, "no reply from 127.0.0.1:" + std::to_string(port));
    if (got == 0) break;
    response.append(buffer, static_cast<std::size_t>(got));
    if (response.size() > std::size_t{1024} * 1024)
      return fail(ErrorCode::limit_exceeded, "reply too large");
  }
  // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody" (the server sends Content-Length, not chunks).
  if (response.size() < 12 || response.rfind("HTTP/1.", 0) != 0) {
    return fail(ErrorCode::protocol, "not an HTTP reply from 127.0.0.1:" + std::to_string(port));
  }
  LoopbackReply reply;
  reply.status = std::atoi(response.c_str() + 9);
  if (auto end = response.find("\r\n\r\n"); end != std::string::npos)
    reply.body = response.substr(end + 4);
  return reply;
}

}  // namespace ava::machine
