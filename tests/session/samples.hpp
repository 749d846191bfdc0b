#pragma once

#include <string>
#include <vector>

#include "ava/session/event.hpp"

namespace ava::test {

// One event body of every known kind, with every optional field filled, so a
// round trip exercises each mapping in both directions.
inline std::vector<session::EventBody> every_kind() {
  using namespace ava::session;
  return {
      SessionStarted{.session_id = "s1",
                     .provider = "anthropic",
                     .model = "claude-x",
                     .cwd = "/work/p",
                     .version = "0.1.0"},
      InputAcknowledged{
          .input_id = "in-1",
          .kind = InputKind::steer,
          .text = "also check ünïcode ✓",
          .attachments = {content::ImageBlock{.media_type = "image/png", .data = "iVBORw=="}}},
      InputClaimed{.input_ids = {"in-1", "in-2"}, .turn_id = "t1", .step = 2},
      TurnStarted{.turn_id = "t1"},
      TurnEnded{.turn_id = "t1", .reason = EndReason::max_steps, .message = "cap of 3 steps"},
      StepStarted{.turn_id = "t1", .step = 1, .model = "claude-x"},
      StepEnded{
          .turn_id = "t1", .step = 1, .reason = EndReason::completed, .stop_reason = "tool_use"},
      AssistantMessage{
          .turn_id = "t1",
          .step = 1,
          .content = {content::ThinkingBlock{.text = "hmm", .signature = "sig=="},
                      content::ThinkingBlock{.redacted_data = "opaque"},
                      content::ThinkingBlock{
                          .text = "r", .encrypted_content = "enc", .provider_id = "rs_1"},
                      content::TextBlock{"Let me look."},
                      content::ToolCallBlock{
                          .id = "call_1", .name = "bash", .arguments = R"({"command":"ls -la"})"},
                      content::ToolCallBlock{
                          .id = "call_2", .name = "edit", .arguments = "{not json"}}},
      ToolResult{.turn_id = "t1",
                 .step = 1,
                 .call_id = "call_1",
                 .tool_name = "bash",
                 .status = ToolStatus::error,
                 .content = {content::TextBlock{"exit 2"},
                             content::ImageBlock{.media_type = "image/jpeg", .data = "/9j/"}},
                 .details = {{"exitCode", 2}, {"truncated", false}}},
      UsageRecorded{.turn_id = "t1",
                    .step = 1,
                    .model = "claude-x",
                    .usage = {.input_tokens = 10,
                              .output_tokens = 20,
                              .cache_read_tokens = 30,
                              .cache_write_tokens = 40,
                              .reasoning_tokens = 5}},
      ModelChanged{.provider = "openai", .model = "gpt-x"},
      Paused{},
      Resumed{},
      Compacted{.summary = "we did things", .first_kept_seq = 7, .tokens_before = 12345},
      ErrorOccurred{.turn_id = "t1", .code = "overloaded", .message = "try later"},
      Recovered{.dropped_bytes = 17, .torn_file = "s1.torn-1", .notes = {"closed turn t1"}},
      ApprovalRequested{.approval_id = "ap-1",
                        .turn_id = "t1",
                        .step = 2,
                        .call_id = "c1",
                        .tool_name = "bash",
                        .arguments = {{"command", "npm test"}},
                        .category = "execute",
                        .reason = "bash needs approval in ask mode",
                        .rule = "bash(npm:*)",
                        .suggested_rules = {"bash(npm test:*)"}},
      ApprovalDecided{.approval_id = "ap-1",
                      .call_id = "c1",
                      .decision = ApprovalDecision::allow,
                      .scope = ApprovalScope::project,
                      .rule = "bash(npm test:*)",
                      .message = "go ahead"},
      PermissionModeChanged{.mode = "accept-edits"},
      HookRan{.hook = "PreToolUse",
              .command = "./check.sh",
              .turn_id = "t1",
              .call_id = "c1",
              .duration_ms = 12,
              .outcome = "block",
              .exit_code = 2,
              .reason = "no pushes",
              .output = "blocked\n"},
      InputBlocked{.input_id = "in-3", .hook = "UserPromptSubmit", .reason = "no secrets ✓"},
      InputAcknowledged{.input_id = "in-4",
                        .kind = InputKind::followup,
                        .text = "/review a.cpp",
                        .command = "review",
                        .expansion = "Review a.cpp for bugs.",
                        .allowed_tools = {"Bash(git diff:*)", "Read"},
                        .allowed_tools_unasked = true},
  };
}

}  // namespace ava::test
