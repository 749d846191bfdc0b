#include "ava/protocol/wire.hpp"

#include <string>

#include "ava/base/base64.hpp"
#include "ava/base/limits.hpp"

namespace ava::protocol {
namespace {

using nlohmann::json;

// An image the provider will accept, checked before it becomes part of the
// conversation for good: one bad image in the log would fail every later
// request of the conversation.
Result<void> check_image(const Attachment& attachment, std::size_t number) {
  const std::string which = "attachment " + std::to_string(number);
  if (attachment.data.empty())
    return fail(ErrorCode::invalid_argument, which + " needs base64 data");
  const std::size_t limit = base::Limits{}.image_bytes;
  if (base::base64_decoded_size(attachment.data.size()) > limit + 2) {
    return fail(ErrorCode::limit_exceeded,
                which + " is larger than the " + std::to_string(limit >> 20) + " MiB image limit");
  }
  auto bytes = base::base64_decode(attachment.data, limit);
  if (!bytes) return fail(ErrorCode::invalid_argument, which + " is not valid base64");
  auto sniffed = base::image_media_type(*bytes);
  if (!sniffed)
    return fail(ErrorCode::invalid_argument, which + " is not a png, jpeg, gif or webp image");
  if (*sniffed != attachment.media_type) {
    return fail(ErrorCode::invalid_argument,
                which + " is " + *sniffed + ", not " +
                    (attachment.media_type.empty() ? std::string("(no mediaType)")
                                                   : attachment.media_type));
  }
  return {};
}

constexpr std::size_t api_key_limit = 8192;

Result<void> check_api_key(const std::string& key) {
  if (key.empty()) return fail(ErrorCode::invalid_argument, "apiKey must not be empty");
  if (key.size() > api_key_limit)
    return fail(ErrorCode::invalid_argument, "apiKey is longer than 8,192 characters");
  for (unsigned char c : key) {
    // Keys are tokens; whitespace or control characters mean a bad paste.
    if (c <= 0x20 || c == 0x7f)
      return fail(ErrorCode::invalid_argument,
                  "apiKey must not contain spaces, line breaks or control characters");
  }
  return {};
}

}  // namespace

json error_body(std::string_view code, std::string_view message) {
  return to_json(ApiError{.error = {.code = std::string(code), .message = std::string(message)}});
}

Result<void> Shape<Project>::check(const Project& project) {
  if (project.id.empty() || project.path.empty()) {
    return fail(ErrorCode::invalid_argument, "a project needs an id and a path");
  }
  return {};
}

Result<void> Shape<Conversation>::check(const Conversation& conversation) {
  if (conversation.id.empty())
    return fail(ErrorCode::invalid_argument, "a conversation needs an id");
  return {};
}

Result<void> Shape<CreateProject>::check(const CreateProject& create) {
  if (create.path.empty()) return fail(ErrorCode::invalid_argument, "path is required");
  return {};
}

Result<void> Shape<CreateConversation>::check(const CreateConversation& create) {
  if (create.project_id.empty()) return fail(ErrorCode::invalid_argument, "projectId is required");
  if (!create.mcp_servers.is_object()) {
    return fail(ErrorCode::invalid_argument, "mcpServers must be an object of servers by name");
  }
  return {};
}

Result<void> Shape<ConversationPatch>::check(const ConversationPatch& patch) {
  if (patch.reviewed_seq && *patch.reviewed_seq < 0) {
    return fail(ErrorCode::invalid_argument, "reviewedSeq must not be negative");
  }
  return {};
}

Result<void> Shape<InputRequest>::check(const InputRequest& input) {
  for (std::size_t i = 0; i < input.attachments.size(); ++i) {
    AVA_TRY_VOID(check_image(input.attachments[i], i + 1));
  }
  if (input.text.empty() && input.attachments.empty()) {
    return fail(ErrorCode::invalid_argument, "input needs text or attachments");
  }
  return {};
}

Result<void> Shape<ProviderUpdateRequest>::check(const ProviderUpdateRequest& update) {
  if (update.api_key) AVA_TRY_VOID(check_api_key(*update.api_key));
  if (!update.kind && !update.base_url && !update.model && !update.api_key &&
      !update.make_default.value_or(false)) {
    return fail(ErrorCode::invalid_argument,
                "nothing to change: give kind, baseUrl, model, apiKey or makeDefault");
  }
  return {};
}

Result<void> Shape<LoginRequest>::check(const LoginRequest& login) {
  if (login.code.empty()) return fail(ErrorCode::invalid_argument, "code is required");
  return {};
}

Result<void> Shape<ShutdownRequest>::check(const ShutdownRequest& request) {
  if (request.max_wait_ms && (*request.max_wait_ms < 0 || *request.max_wait_ms > 86'400'000)) {
    return fail(ErrorCode::invalid_argument, "maxWaitMs must be 0-86400000");
  }
  return {};
}

Result<void> Shape<TunnelPortRequest>::check(const TunnelPortRequest& request) {
  if (request.port < 1 || request.port > 65535) {
    return fail(ErrorCode::invalid_argument, "port must be 1-65535");
  }
  if (request.redirect_port && (*request.redirect_port < 1 || *request.redirect_port > 65535)) {
    return fail(ErrorCode::invalid_argument, "redirectPort must be 1-65535");
  }
  return {};
}

Result<void> Shape<SignInCallbackRequest>::check(const SignInCallbackRequest& request) {
  constexpr std::size_t max_query = 8 * 1024;
  if (request.query.empty() || request.query.size() > max_query) {
    return fail(ErrorCode::invalid_argument, "query must be 1-8192 bytes");
  }
  return {};
}

Result<CreateConversation> parse_create_conversation(const json& value) {
  return from_json<CreateConversation>(value);
}

Result<ConversationPatch> parse_conversation_patch(const json& value) {
  return from_json<ConversationPatch>(value);
}

Result<InputRequest> parse_input_request(const json& value) {
  return from_json<InputRequest>(value);
}

Result<CreateProject> parse_create_project(const json& value) {
  return from_json<CreateProject>(value);
}

Result<ModelRef> parse_model_ref(const json& value) { return from_json<ModelRef>(value, "model"); }

Result<void> Shape<TerminalControl>::check(const TerminalControl& control) {
  if (control.type == "pause" || control.type == "resume") return {};
  if (control.type != "resize") {
    return fail(ErrorCode::invalid_argument, "type must be \"resize\", \"pause\" or \"resume\"");
  }
  const auto in_range = [](const std::optional<std::int64_t>& cells) {
    return cells && *cells >= 1 && *cells <= max_terminal_cells;
  };
  if (!in_range(control.cols) || !in_range(control.rows)) {
    return fail(ErrorCode::invalid_argument, "cols and rows must be between 1 and 1000");
  }
  return {};
}

Result<void> Shape<ApprovalDecisionRequest>::check(const ApprovalDecisionRequest& request) {
  if (request.rule.size() > 4096) {
    return fail(ErrorCode::invalid_argument, "rule is longer than 4,096 characters");
  }
  if (request.message.size() > 4096) {
    return fail(ErrorCode::invalid_argument, "message is longer than 4,096 characters");
  }
  if (request.decision == ApprovalDecision::deny && request.scope != ApprovalScope::once) {
    return fail(ErrorCode::invalid_argument, "a denial is for this call only (scope once)");
  }
  return {};
}

Result<ApprovalDecisionRequest> parse_approval_decision(const json& value) {
  return from_json<ApprovalDecisionRequest>(value);
}

Result<PermissionModeRequest> parse_permission_mode(const json& value) {
  return from_json<PermissionModeRequest>(value);
}

Result<ProviderUpdateRequest> parse_provider_update(const json& value) {
  return from_json<ProviderUpdateRequest>(value);
}

Result<SkillUpdateRequest> parse_skill_update(const json& value) {
  if (value.is_object() && !value.contains("enabled")) {
    return fail(ErrorCode::invalid_argument,
                "enabled is required: true, false, or null to remove the setting");
  }
  return from_json<SkillUpdateRequest>(value);
}

Result<Project> project_from_json(const json& value) {
  return from_json<Project>(value, "project");
}

Result<Conversation> conversation_from_json(const json& value) {
  return from_json<Conversation>(value, "conversation");
}

}  // namespace ava::protocol
