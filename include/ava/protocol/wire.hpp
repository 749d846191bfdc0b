#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// The JSON shapes of the HTTP/SSE API (docs/api.md), shared by the API server
// (the server package) and its clients (desktop, web). Field names are camelCase on the wire.
// Parsing is strict about types and lenient about unknown fields, so an
// older server accepts a newer client's extra fields.
namespace ava::protocol {

// {"error": {"code": "...", "message": "..."}}: every non-2xx response.
nlohmann::json error_body(std::string_view code, std::string_view message);

struct ModelRef {
  std::string provider;  // empty: the configured default
  std::string model;
};

struct Project {
  std::string id;
  std::string path;  // absolute, canonical
  std::string name;
  std::int64_t created_ms = 0;
};

struct TokenTotals {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;
};

// A conversation's navigation metadata, as the registry keeps it: listing
// conversations reads only this, never the logs.
struct Conversation {
  std::string id;  // the session id; its log is sessions/<id>.jsonl.zst
  std::string project_id;
  std::string title;
  ModelRef model;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;  // last input or turn end
  bool pinned = false;
  bool archived = false;
  std::int64_t reviewed_seq = 0;  // the review marker: events up to here were seen
  std::int64_t last_seq = 0;      // as of the last turn end this process saw
  TokenTotals usage;
};

nlohmann::json to_json(const ModelRef& model);
nlohmann::json to_json(const Project& project);
nlohmann::json to_json(const TokenTotals& totals);
nlohmann::json to_json(const Conversation& conversation);
Result<Project> project_from_json(const nlohmann::json& json);
Result<Conversation> conversation_from_json(const nlohmann::json& json);

// POST /api/conversations
struct CreateConversation {
  std::string project_id;
  std::string title;
  ModelRef model;
};
Result<CreateConversation> parse_create_conversation(const nlohmann::json& json);

// PATCH /api/conversations/{id}: only the fields present change.
struct ConversationPatch {
  std::optional<std::string> title;
  std::optional<bool> pinned;
  std::optional<bool> archived;
  std::optional<std::int64_t> reviewed_seq;
  std::optional<ModelRef> model;  // set by PUT .../model, not by PATCH
};
Result<ConversationPatch> parse_conversation_patch(const nlohmann::json& json);

struct Attachment {
  std::string media_type;  // image/png, image/jpeg, image/gif, image/webp
  std::string data;        // base64
};

// POST /api/conversations/{id}/input
enum class InputKind { followup, steer };
struct InputRequest {
  InputKind kind = InputKind::followup;
  std::string text;
  std::string input_id;  // optional, client-chosen: resending it is answered once
  std::vector<Attachment> attachments;
};
Result<InputRequest> parse_input_request(const nlohmann::json& json);

// 202 Accepted for an input, once it is durable.
struct InputAccepted {
  std::string input_id;
  std::int64_t seq = 0;
  bool duplicate = false;
};
nlohmann::json to_json(const InputAccepted& accepted);

// POST /api/projects
struct CreateProject {
  std::string path;
  std::string name;  // default: the folder's name
};
Result<CreateProject> parse_create_project(const nlohmann::json& json);

Result<ModelRef> parse_model_ref(const nlohmann::json& json);

// PUT /api/settings/providers/{name}: fields left out keep their value, an
// empty string resets one to its default. The key is checked here (one
// printable token, no spaces) so a paste with a newline is refused rather
// than saved.
struct ProviderUpdateRequest {
  std::optional<std::string> kind;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  std::optional<std::string> api_key;
};
Result<ProviderUpdateRequest> parse_provider_update(const nlohmann::json& json);

// PUT /api/skills/{name}: `enabled` must be present; null removes the
// switch. Without projectId the switch is the user-wide one.
struct SkillUpdateRequest {
  std::optional<bool> enabled;  // nullopt: remove the switch
  std::string project_id;
};
Result<SkillUpdateRequest> parse_skill_update(const nlohmann::json& json);

}  // namespace ava::protocol
