// ava-backend: the persistent API server of one AVA_HOME (see server.hpp).
#include <CLI/CLI.hpp>

#include "ava/base/log.hpp"
#include "ava/base/version.hpp"
#include "ava/server/server.hpp"

int main(int argc, char** argv) {
  CLI::App cli{"ava-backend: owns Ava's agents and serves them over HTTP on 127.0.0.1.",
               "ava-backend"};
  cli.set_version_flag("-V,--version", "ava-backend " + std::string(ava::base::version()));
  int port = 0;
  int threads = 2;
  std::string log_level = "info";
  cli.add_option("--port", port, "Port (default: any free one)")->check(CLI::Range(0, 65535));
  cli.add_option("--threads", threads, "Worker threads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cli.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->envname("AVA_LOG")
      ->capture_default_str();
  CLI11_PARSE(cli, argc, argv);
  auto level = ava::base::parse_log_level(log_level);
  if (!level) {
    std::fprintf(stderr, "ava-backend: %s\n", level.error().message.c_str());
    return 2;
  }
  if (auto logging = ava::base::setup_logging({.level = *level}); !logging) {
    std::fprintf(stderr, "ava-backend: %s\n", logging.error().describe().c_str());
    return 1;
  }
  return ava::server::run_api_server(
      {.mode = "backend", .port = static_cast<std::uint16_t>(port), .threads = threads});
}
