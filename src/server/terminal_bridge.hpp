#pragma once

#include <boost/asio/awaitable.hpp>

#include "ava/httpd/http_server.hpp"
#include "ava/terminal/session.hpp"

namespace ava::server {

// Carries a terminal over a WebSocket (docs/api.md, "Terminals") until one
// side ends: binary messages are the terminal's bytes both ways, text
// messages are control (TerminalControl from the viewer: resize, pause and
// resume; TerminalExit, last, from the server). When the viewer goes, the
// shell is hung up; when the shell ends, the viewer is told how and the
// socket closes.
boost::asio::awaitable<void> bridge_terminal(httpd::WebSocket& socket, terminal::Session& session);

}  // namespace ava::server
