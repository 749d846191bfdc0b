// finish() and usage_error() (commands.hpp): the one place a command's
// failure is worded and turned into an exit code.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "ava/base/log.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

void print(CommandName command, const Error& error) {
  const std::string message = command.redact ? base::redact(error.message) : error.message;
  const std::string line = command.name.empty()
                               ? fmt::format("ava: {}\n", message)
                               : fmt::format("ava {}: {}\n", command.name, message);
  std::fputs(line.c_str(), stderr);
}

}  // namespace

void finish(CliContext& context, CommandName command, Result<int> outcome) {
  if (outcome) {
    context.exit_code = *outcome;
    return;
  }
  print(command, outcome.error());
  context.exit_code = exit_failed;
}

int usage_error(CommandName command, const Error& error) {
  print(command, error);
  return exit_usage;
}

}  // namespace ava::cli
