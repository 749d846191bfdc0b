#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/agent/agent.hpp"
#include "ava/session/event.hpp"

// Ava's session events as ACP `session/update` payloads (the `update`
// object of a session/update notification), for the live stream and for
// replaying a log (session/load). Pure: no I/O.
namespace ava::acp {

// ACP's tool kinds for Ava's tools: read, edit, execute, search, fetch, other.
std::string tool_kind(const std::string& tool_name);

// The slash commands a session's input may start with (Ava's built-in
// ones, then the project's and the user's under AVA_HOME `home`), as an
// available_commands_update.
nlohmann::json available_commands_update(const std::filesystem::path& cwd,
                                         const std::filesystem::path& home);

// A tool call's first report: title, kind, raw input, the paths it touches
// as locations and, for edit and write, the change as diff content.
nlohmann::json tool_call_update(const std::string& call_id, const std::string& tool_name,
                                const nlohmann::json& arguments, const std::filesystem::path& cwd);

// Turns one conversation's items into updates. Text streams as chunks from
// the live deltas; the whole message that follows only adds what the
// deltas did not bring (a delta may also arrive after it, and is dropped).
class UpdateMapper {
 public:
  explicit UpdateMapper(std::filesystem::path cwd) : cwd_(std::move(cwd)) {}

  // A durable event. `replay`: the log read back (session/load), so user
  // input and whole messages are sent as chunks too.
  std::vector<nlohmann::json> on_event(const session::Event& event, bool replay);
  std::vector<nlohmann::json> on_live(const agent::LiveEvent& event);

 private:
  struct Streamed {
    std::string text;
    std::string thinking;
    bool complete = false;
  };
  std::filesystem::path cwd_;
  std::map<std::pair<std::string, int>, Streamed> steps_;  // (turn, step)
};

}  // namespace ava::acp
