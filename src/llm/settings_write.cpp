// Changing settings.json from a program (the API's settings page): one
// provider entry at a time, the rest of the file kept as the user wrote it,
// under an exclusive lock on settings.json.lock.

#include <fmt/format.h>

#include "ava/base/private_file.hpp"
#include "ava/llm/settings.hpp"
#include "llm/settings_files.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

Result<json> read_settings_document(const std::filesystem::path& path) {
  auto text = base::read_file_limited(path, detail::settings_file_limit);
  if (!text && text.error().code == ErrorCode::not_found) return json::object();
  if (!text) return std::unexpected(text.error());
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  AVA_TRY(json document, detail::parse_json_document(*text, path.string(), false));
  if (!document.is_object())
    return fail(ErrorCode::parse, fmt::format("{}: must hold a JSON object", path.string()));
  return document;
}

void set_or_keep(json& entry, const char* key, const std::optional<std::string>& value) {
  if (!value) return;
  if (value->empty()) {
    entry.erase(key);  // an empty field means "back to the default"
  } else {
    entry[key] = *value;
  }
}

}  // namespace

Result<void> save_provider(const base::Home& home, std::string_view name,
                           const ProviderUpdate& update) {
  if (!detail::valid_provider_name(name)) {
    return fail(
        ErrorCode::invalid_argument,
        fmt::format("'{}' is not a valid provider name (letters, digits, '.', '_', '-')", name));
  }
  const auto path = home.file("settings.json");
  // Read, changed and replaced under settings.json.lock: two processes
  // saving providers at once keep both.
  AVA_TRY(auto lock, detail::lock_beside(path));
  // A file that does not parse is left alone: it is the user's, and they
  // should see the error rather than lose what they wrote.
  AVA_TRY(json document, read_settings_document(path));
  json& providers = document["providers"];
  if (providers.is_null()) providers = json::object();
  if (!providers.is_object())
    return fail(ErrorCode::parse, fmt::format("{}: providers must be an object", path.string()));
  json& entry = providers[std::string(name)];
  if (entry.is_null()) entry = json::object();
  if (!entry.is_object()) {
    return fail(ErrorCode::parse,
                fmt::format("{}: providers.{} must be an object", path.string(), name));
  }
  set_or_keep(entry, "kind", update.kind);
  set_or_keep(entry, "baseUrl", update.base_url);
  set_or_keep(entry, "model", update.model);
  if (update.make_default) document["provider"] = std::string(name);

  std::string text;
  try {
    text = document.dump(2) + "\n";
  } catch (const json::type_error&) {
    return fail(ErrorCode::invalid_argument, "provider settings must be valid UTF-8 text");
  }
  Settings check;
  AVA_TRY_VOID(parse_settings_json(text, path.string(), check));
  return base::write_private_file(path, text);
}

}  // namespace ava::llm
