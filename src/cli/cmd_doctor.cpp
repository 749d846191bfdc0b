// `ava doctor [--json] [--no-mcp]`: checks a user can act on, one line each
// with its fix. Exit 1 when a check fails, 0 otherwise (warnings included).
#include <unistd.h>

#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "ava/ansi/render.hpp"
#include "ava/doctor/doctor.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

constexpr CommandName command_name{.name = "doctor", .redact = true};

const char* mark(doctor::Level level, bool colour) {
  if (!colour) {
    switch (level) {
      case doctor::Level::ok: return "ok  ";
      case doctor::Level::info: return "info";
      case doctor::Level::warn: return "warn";
      case doctor::Level::fail: return "FAIL";
    }
  }
  switch (level) {
    case doctor::Level::ok: return "\033[32mok\033[0m  ";
    case doctor::Level::info: return "\033[2minfo\033[0m";
    case doctor::Level::warn: return "\033[33mwarn\033[0m";
    case doctor::Level::fail: return "\033[1;31mFAIL\033[0m";
  }
  return "";
}

Result<int> run(bool json, bool check_mcp) {
  AVA_TRY(auto home, base::Home::resolve());
  const auto findings = doctor::run_checks(home, {.check_mcp = check_mcp});
  const auto worst = doctor::worst(findings);
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& finding : findings) {
      list.push_back({{"area", finding.area},
                      {"level", doctor::to_string(finding.level)},
                      {"summary", finding.summary},
                      {"fix", finding.fix}});
    }
    std::printf("%s\n", nlohmann::json{{"home", home.root().string()},
                                       {"worst", doctor::to_string(worst)},
                                       {"findings", std::move(list)}}
                            .dump(2)
                            .c_str());
  } else {
    const bool colour = ansi::colour_wanted(STDOUT_FILENO);
    for (const auto& finding : findings) {
      std::printf("%s  %-9s %s\n", mark(finding.level, colour), finding.area.c_str(),
                  finding.summary.c_str());
      if (!finding.fix.empty()) {
        std::printf("                fix: %s\n", finding.fix.c_str());
      }
    }
  }
  return worst == doctor::Level::fail ? 1 : 0;
}

}  // namespace

void add_doctor_commands(CLI::App& cli, CliContext& context) {
  auto* doctor_cmd = cli.add_subcommand(
      "doctor", "Check the home, backend, providers, local models, MCP servers and sandbox");
  auto json = std::make_shared<bool>(false);
  auto no_mcp = std::make_shared<bool>(false);
  doctor_cmd->add_flag("--json", *json, "Machine-readable output");
  doctor_cmd->add_flag("--no-mcp", *no_mcp, "Do not start the MCP servers");
  doctor_cmd->callback(
      [&context, json, no_mcp] { finish(context, command_name, run(*json, !*no_mcp)); });
}

}  // namespace ava::cli
