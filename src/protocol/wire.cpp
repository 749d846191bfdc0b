#include "ava/protocol/wire.hpp"

#include <string>

#include "ava/base/base64.hpp"
#include "ava/base/limits.hpp"

namespace ava::protocol {
namespace {

using nlohmann::json;

Result<void> require_object(const json& value, std::string_view what) {
  if (!value.is_object())
    return fail(ErrorCode::invalid_argument, std::string(what) + " must be a JSON object");
  return {};
}

// Optional typed fields: absent or null leaves `out` alone; a wrong type is an
// error naming the field.
Result<void> read_string(const json& object, const char* key, std::string& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_string())
    return fail(ErrorCode::invalid_argument, std::string(key) + " must be a string");
  out = it->get<std::string>();
  return {};
}

Result<void> read_bool(const json& object, const char* key, std::optional<bool>& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_boolean())
    return fail(ErrorCode::invalid_argument, std::string(key) + " must be true or false");
  out = it->get<bool>();
  return {};
}

Result<void> read_int(const json& object, const char* key, std::optional<std::int64_t>& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_number_integer())
    return fail(ErrorCode::invalid_argument, std::string(key) + " must be an integer");
  out = it->get<std::int64_t>();
  return {};
}

std::int64_t int_or(const json& object, const char* key, std::int64_t fallback = 0) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

bool bool_or(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

json error_body(std::string_view code, std::string_view message) {
  return {{"error", {{"code", code}, {"message", message}}}};
}

json to_json(const ModelRef& model) {
  return {{"provider", model.provider}, {"model", model.model}};
}

json to_json(const Project& project) {
  return {{"id", project.id},
          {"path", project.path},
          {"name", project.name},
          {"createdMs", project.created_ms}};
}

json to_json(const TokenTotals& totals) {
  return {{"inputTokens", totals.input},
          {"outputTokens", totals.output},
          {"cacheReadTokens", totals.cache_read},
          {"cacheWriteTokens", totals.cache_write}};
}

json to_json(const Conversation& c) {
  return {{"id", c.id},
          {"projectId", c.project_id},
          {"title", c.title},
          {"model", to_json(c.model)},
          {"createdMs", c.created_ms},
          {"updatedMs", c.updated_ms},
          {"pinned", c.pinned},
          {"archived", c.archived},
          {"reviewedSeq", c.reviewed_seq},
          {"lastSeq", c.last_seq},
          {"usage", to_json(c.usage)}};
}

json to_json(const InputAccepted& accepted) {
  return {{"inputId", accepted.input_id}, {"seq", accepted.seq}, {"duplicate", accepted.duplicate}};
}

Result<ModelRef> parse_model_ref(const json& value) {
  AVA_TRY_VOID(require_object(value, "model"));
  ModelRef model;
  AVA_TRY_VOID(read_string(value, "provider", model.provider));
  AVA_TRY_VOID(read_string(value, "model", model.model));
  return model;
}

Result<Project> project_from_json(const json& value) {
  AVA_TRY_VOID(require_object(value, "project"));
  Project project;
  AVA_TRY_VOID(read_string(value, "id", project.id));
  AVA_TRY_VOID(read_string(value, "path", project.path));
  AVA_TRY_VOID(read_string(value, "name", project.name));
  project.created_ms = int_or(value, "createdMs");
  if (project.id.empty() || project.path.empty()) {
    return fail(ErrorCode::invalid_argument, "a project needs an id and a path");
  }
  return project;
}

Result<Conversation> conversation_from_json(const json& value) {
  AVA_TRY_VOID(require_object(value, "conversation"));
  Conversation c;
  AVA_TRY_VOID(read_string(value, "id", c.id));
  AVA_TRY_VOID(read_string(value, "projectId", c.project_id));
  AVA_TRY_VOID(read_string(value, "title", c.title));
  if (auto model = value.find("model"); model != value.end() && model->is_object()) {
    AVA_TRY(c.model, parse_model_ref(*model));
  }
  c.created_ms = int_or(value, "createdMs");
  c.updated_ms = int_or(value, "updatedMs");
  c.pinned = bool_or(value, "pinned");
  c.archived = bool_or(value, "archived");
  c.reviewed_seq = int_or(value, "reviewedSeq");
  c.last_seq = int_or(value, "lastSeq");
  if (auto usage = value.find("usage"); usage != value.end() && usage->is_object()) {
    c.usage.input = int_or(*usage, "inputTokens");
    c.usage.output = int_or(*usage, "outputTokens");
    c.usage.cache_read = int_or(*usage, "cacheReadTokens");
    c.usage.cache_write = int_or(*usage, "cacheWriteTokens");
  }
  if (c.id.empty()) return fail(ErrorCode::invalid_argument, "a conversation needs an id");
  return c;
}

Result<CreateConversation> parse_create_conversation(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  CreateConversation create;
  AVA_TRY_VOID(read_string(value, "projectId", create.project_id));
  AVA_TRY_VOID(read_string(value, "title", create.title));
  if (auto model = value.find("model"); model != value.end() && !model->is_null()) {
    AVA_TRY(create.model, parse_model_ref(*model));
  }
  if (create.project_id.empty()) return fail(ErrorCode::invalid_argument, "projectId is required");
  return create;
}

Result<ConversationPatch> parse_conversation_patch(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  ConversationPatch patch;
  if (value.contains("title")) {
    std::string title;
    AVA_TRY_VOID(read_string(value, "title", title));
    patch.title = std::move(title);
  }
  AVA_TRY_VOID(read_bool(value, "pinned", patch.pinned));
  AVA_TRY_VOID(read_bool(value, "archived", patch.archived));
  AVA_TRY_VOID(read_int(value, "reviewedSeq", patch.reviewed_seq));
  if (patch.reviewed_seq && *patch.reviewed_seq < 0) {
    return fail(ErrorCode::invalid_argument, "reviewedSeq must not be negative");
  }
  return patch;
}

namespace {

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

}  // namespace

Result<InputRequest> parse_input_request(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  InputRequest input;
  std::string kind = "followup";
  AVA_TRY_VOID(read_string(value, "kind", kind));
  if (kind == "steer") {
    input.kind = InputKind::steer;
  } else if (kind != "followup") {
    return fail(ErrorCode::invalid_argument, "kind must be \"followup\" or \"steer\"");
  }
  AVA_TRY_VOID(read_string(value, "text", input.text));
  AVA_TRY_VOID(read_string(value, "inputId", input.input_id));
  if (auto list = value.find("attachments"); list != value.end() && !list->is_null()) {
    if (!list->is_array()) return fail(ErrorCode::invalid_argument, "attachments must be an array");
    for (const auto& item : *list) {
      AVA_TRY_VOID(require_object(item, "an attachment"));
      Attachment attachment;
      AVA_TRY_VOID(read_string(item, "mediaType", attachment.media_type));
      AVA_TRY_VOID(read_string(item, "data", attachment.data));
      AVA_TRY_VOID(check_image(attachment, input.attachments.size() + 1));
      input.attachments.push_back(std::move(attachment));
    }
  }
  if (input.text.empty() && input.attachments.empty()) {
    return fail(ErrorCode::invalid_argument, "input needs text or attachments");
  }
  return input;
}

Result<CreateProject> parse_create_project(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  CreateProject create;
  AVA_TRY_VOID(read_string(value, "path", create.path));
  AVA_TRY_VOID(read_string(value, "name", create.name));
  if (create.path.empty()) return fail(ErrorCode::invalid_argument, "path is required");
  return create;
}

namespace {

Result<void> read_optional_string(const json& object, const char* key,
                                  std::optional<std::string>& out) {
  if (!object.contains(key) || object[key].is_null()) return {};
  std::string value;
  AVA_TRY_VOID(read_string(object, key, value));
  out = std::move(value);
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

Result<ProviderUpdateRequest> parse_provider_update(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  ProviderUpdateRequest update;
  AVA_TRY_VOID(read_optional_string(value, "kind", update.kind));
  AVA_TRY_VOID(read_optional_string(value, "baseUrl", update.base_url));
  AVA_TRY_VOID(read_optional_string(value, "model", update.model));
  AVA_TRY_VOID(read_optional_string(value, "apiKey", update.api_key));
  if (update.api_key) AVA_TRY_VOID(check_api_key(*update.api_key));
  if (!update.kind && !update.base_url && !update.model && !update.api_key)
    return fail(ErrorCode::invalid_argument,
                "nothing to change: give kind, baseUrl, model or apiKey");
  return update;
}

Result<SkillUpdateRequest> parse_skill_update(const json& value) {
  AVA_TRY_VOID(require_object(value, "the body"));
  if (!value.contains("enabled"))
    return fail(ErrorCode::invalid_argument,
                "enabled is required: true, false, or null to remove the setting");
  SkillUpdateRequest update;
  AVA_TRY_VOID(read_bool(value, "enabled", update.enabled));
  AVA_TRY_VOID(read_string(value, "projectId", update.project_id));
  return update;
}

}  // namespace ava::protocol
