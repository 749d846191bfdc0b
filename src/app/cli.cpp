#include "ava/app/cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "ava/base/log.hpp"
#include "ava/base/version.hpp"

namespace ava::app {

int run_cli(int argc, char** argv) {
  CLI::App cli{"Ava: a native coding-agent platform.", "ava"};
  cli.set_version_flag("-V,--version", "ava " + std::string(base::version()),
                       "Print the version and exit");
  std::string log_level = "warn";
  cli.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->envname("AVA_LOG")
      ->capture_default_str();
  cli.require_subcommand(0, 1);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }

  auto level = base::parse_log_level(log_level);
  if (!level) {
    std::fprintf(stderr, "ava: %s\n", level.error().message.c_str());
    return 2;
  }
  if (auto logging = base::setup_logging({.level = *level}); !logging) {
    std::fprintf(stderr, "ava: %s\n", logging.error().describe().c_str());
    return 1;
  }
  std::fputs(cli.help().c_str(), stdout);
  return 0;
}

}  // namespace ava::app
