#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "ava/acp/conversation.hpp"

// `ava acp`: an Agent Client Protocol agent (protocol version 1, JSON-RPC
// 2.0, one message per line) on a pair of streams, normally stdin/stdout,
// for editors (Zed, JetBrains, Neovim, Emacs). Every ACP session is an Ava
// conversation (docs/acp.md).
namespace ava::acp {

inline constexpr int protocol_version = 1;
// The largest message read; a longer line is answered with a parse error
// and skipped.
inline constexpr std::size_t max_message_bytes = std::size_t{32} * 1024 * 1024;

struct ServerOptions {
  std::string version;         // Ava's, for agentInfo
  std::filesystem::path home;  // AVA_HOME: the user's slash commands; empty: none
};

// Serves until `in` ends, then closes every session (their agents stop at
// a step boundary, as when a terminal closes). Thread-safe writes to `out`.
void serve(std::istream& in, std::ostream& out, ConversationOpener& opener,
           const ServerOptions& options);

}  // namespace ava::acp
