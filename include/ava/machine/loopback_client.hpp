#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "ava/base/error.hpp"

namespace ava::machine {

struct LoopbackReply {
  int status = 0;
  std::string body;
};

// One blocking HTTP/1.1 request to 127.0.0.1:port, for the CLI's backend
// commands (start waits for health, stop asks for shutdown). Small replies only.
Result<LoopbackReply> loopback_request(std::uint16_t port, std::string_view method,
                                       std::string_view path, std::string_view token,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(5));
// The same with a JSON body (Content-Type: application/json).
Result<LoopbackReply> loopback_request(std::uint16_t port, std::string_view method,
                                       std::string_view path, std::string_view token,
                                       std::string_view json_body,
                                       std::chrono::milliseconds timeout);

}  // namespace ava::machine
