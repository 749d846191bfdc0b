// What the server sends matches the shapes the web UI's types are generated
// from: durable events (the session codec), driver status and status
// stream messages.
#include <catch2/catch.hpp>

#include "ava/capabilities/mcp_hub.hpp"
#include "ava/session/codec.hpp"
#include "server/api.hpp"
#include "support/shape_check.hpp"

using namespace ava;

namespace {

std::string event_problem(session::EventBody body, const std::string& shape) {
  const session::Event event{.seq = 7, .ts_ms = 1000, .body = std::move(body)};
  return test::object_mismatch(session::encode(event), shape, shape);
}

}  // namespace

TEST_CASE("durable events have the declared shapes", "[server][protocol]") {
  CHECK(event_problem(
            session::SessionStarted{
                .session_id = "s", .provider = "p", .model = "m", .cwd = "/", .version = "1"},
            "SessionStartEvent") == "");
  CHECK(event_problem(
            session::InputAcknowledged{
                .input_id = "i", .kind = session::InputKind::steer, .text = "t"},
            "InputEvent") == "");
  CHECK(event_problem(session::InputClaimed{.input_ids = {"i"}, .turn_id = "t", .step = 1},
                      "InputClaimedEvent") == "");
  CHECK(event_problem(session::TurnStarted{.turn_id = "t"}, "TurnStartEvent") == "");
  CHECK(
      event_problem(
          session::TurnEnded{.turn_id = "t", .reason = session::EndReason::aborted, .message = "m"},
          "TurnEndEvent") == "");
  CHECK(event_problem(session::StepStarted{.turn_id = "t", .step = 1, .model = "m"},
                      "StepStartEvent") == "");
  CHECK(event_problem(session::StepEnded{.turn_id = "t", .step = 1}, "StepEndEvent") == "");
  session::AssistantMessage assistant{.turn_id = "t", .step = 1};
  assistant.content = {llm::TextBlock{"hi"}, llm::ThinkingBlock{.text = "hm", .signature = "sig"},
                       llm::ToolCallBlock{.id = "c", .name = "bash", .arguments = "{}"}};
  CHECK(event_problem(assistant, "AssistantEvent") == "");
  session::ToolResult result{.turn_id = "t",
                             .step = 1,
                             .call_id = "c",
                             .tool_name = "bash",
                             .status = session::ToolStatus::interrupted};
  result.content = {llm::TextBlock{"out"}};
  result.details = {{"exit_code", 0}};
  CHECK(event_problem(result, "ToolResultEvent") == "");
  CHECK(event_problem(session::UsageRecorded{.turn_id = "t", .step = 1, .model = "m"},
                      "UsageEvent") == "");
  CHECK(event_problem(session::ModelChanged{.provider = "p", .model = "m"}, "ModelChangedEvent") ==
        "");
  CHECK(event_problem(session::Compacted{.summary = "s", .first_kept_seq = 3}, "CompactionEvent") ==
        "");
  CHECK(event_problem(session::ErrorOccurred{.code = "c", .message = "m"}, "ErrorEvent") == "");
  CHECK(event_problem(session::Recovered{.dropped_bytes = 3, .notes = {"n"}}, "RecoveredEvent") ==
        "");
}

TEST_CASE("driver status and status stream messages have the declared shapes",
          "[server][protocol]") {
  agent::Status status;
  status.state = agent::DriverState::running;
  CHECK(test::object_mismatch(protocol::to_json(server::driver_status(status)), "DriverStatus",
                              "status") == "");
  CHECK(test::object_mismatch(
            server::live_message("c", agent::StateChanged{agent::DriverState::paused}),
            "StateMessage", "state") == "");
  CHECK(
      test::object_mismatch(
          server::live_message(
              "c", agent::StreamProgress{.turn_id = "t", .step = 1, .event = llm::TextDelta{"x"}}),
          "DeltaMessage", "delta") == "");
  CHECK(test::object_mismatch(
            server::live_message(
                "c",
                agent::ToolActivity{
                    .turn_id = "t", .call_id = "c", .tool_name = "bash", .label = "Running bash"}),
            "ToolMessage", "tool") == "");
}

TEST_CASE("MCP server listings and tests have the declared shapes", "[server][protocol]") {
  capabilities::McpServerEntry stdio{
      .name = "fs", .command = "node", .args = {"a"}, .env = {{"K", "v"}}};
  stdio.projects["/work/p"] = false;
  CHECK(test::object_mismatch(protocol::to_json(capabilities::server_view(stdio, false)),
                              "McpServer", "stdio") == "");
  capabilities::McpServerEntry http{.name = "r", .transport = "http", .url = "https://x/mcp"};
  http.headers["Authorization"] = "Bearer x";
  auto listed = protocol::to_json(capabilities::server_view(http, false));
  listed["enabledHere"] = true;
  CHECK(test::object_mismatch(listed, "McpServer", "http") == "");
  capabilities::McpProbe probe;
  probe.server.name = "s";
  probe.server.protocol_version = "2025-11-25";
  probe.tools.push_back({.name = "read_text_file", .description = "reads"});
  CHECK(test::object_mismatch(protocol::to_json(capabilities::probe_view(probe)), "McpServerTest",
                              "probe") == "");
  // A create body in the declared shape is accepted.
  const nlohmann::json body{{"name", "x"},
                            {"type", "http"},
                            {"url", "http://127.0.0.1:1/mcp"},
                            {"headers", {{"A", "b"}}},
                            {"enabled", false},
                            {"replace", true}};
  CHECK(test::object_mismatch(body, "CreateMcpServer", "create") == "");
  CHECK(capabilities::entry_from_json("x", body).has_value());
}
