// `ava --serve [--port N] [--no-open]`, and bare `ava`: the API and the web
// UI in the foreground.
#include "ava/server/server.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

void add_serve_options(CLI::App& cli, ServeFlags& flags) {
  cli.add_flag("--serve", flags.serve,
               "Serve the web UI and the API on 127.0.0.1 (the default without -p)");
  cli.add_option("--port", flags.port, "Port for --serve (default: any free one)")
      ->check(CLI::Range(0, 65535));
  cli.add_flag("--no-open", flags.no_open, "Do not open a browser for --serve");
}

int run_serve(const ServeFlags& flags) {
  return server::run_api_server({.mode = "serve",
                                 .port = static_cast<std::uint16_t>(flags.port),
                                 .threads = 2,
                                 .open_browser = !flags.no_open});
}

}  // namespace ava::cli
