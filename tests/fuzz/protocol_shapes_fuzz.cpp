// The API's request and record decoders (protocol/wire.hpp, from the Shape
// tables of shape.hpp): what clients POST and PUT, and web.json's records.
//
// The input is decoded as every request body is (base::parse_json with the
// server's limits), then handed to every parser, and to the same parsers
// under a wrapper object so nested shapes (model, attachments) see it too.
//
// Checks: nothing throws; an accepted value encodes (to_json) to JSON that
// decodes again to a value encoding to the same JSON (one table, so encoder
// and decoder cannot disagree); every refusal is invalid_argument or
// limit_exceeded with a message.
#include <string>
#include <string_view>

#include "ava/base/json.hpp"
#include "ava/protocol/files.hpp"
#include "ava/protocol/responses.hpp"
#include "ava/protocol/wire.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using nlohmann::json;
namespace protocol = ava::protocol;

template <class T>
void check_result(const ava::Result<T>& decoded) {
  if (!decoded) {
    FUZZ_CHECK(decoded.error().code == ava::ErrorCode::invalid_argument ||
               decoded.error().code == ava::ErrorCode::limit_exceeded);
    FUZZ_CHECK(!decoded.error().message.empty());
    return;
  }
  const json encoded = protocol::to_json(*decoded);
  const auto again = protocol::from_json<T>(encoded);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(protocol::to_json(*again) == encoded);
}

void check_all(const json& value) {
  check_result(protocol::parse_create_conversation(value));
  check_result(protocol::parse_conversation_patch(value));
  check_result(protocol::parse_input_request(value));
  check_result(protocol::parse_create_project(value));
  check_result(protocol::parse_model_ref(value));
  check_result(protocol::parse_provider_update(value));
  check_result(protocol::parse_skill_update(value));
  check_result(protocol::project_from_json(value));
  check_result(protocol::conversation_from_json(value));
  check_result(protocol::from_json<protocol::LoginRequest>(value));
  check_result(protocol::from_json<protocol::TunnelPortRequest>(value));
  check_result(protocol::from_json<protocol::SignInCallbackRequest>(value));
  check_result(protocol::from_json<protocol::TerminalControl>(value));
  // Answers decode too (a client's view of them).
  check_result(protocol::from_json<protocol::ConversationView>(value));
  check_result(protocol::from_json<protocol::SettingsResponse>(value));
  check_result(protocol::from_json<protocol::ProcessStatus>(value));
  check_result(protocol::from_json<protocol::CatalogMessage>(value));
  check_result(protocol::from_json<protocol::TerminalExit>(value));
  check_result(protocol::from_json<protocol::FileListing>(value));
  check_result(protocol::from_json<protocol::FilePreview>(value));
  check_result(protocol::from_json<protocol::FileMatches>(value));
  check_result(protocol::from_json<protocol::FileChanges>(value));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto value =
      ava::base::parse_json(text, ava::base::JsonLimits{.max_depth = 32, .max_bytes = 1 << 16});
  if (!value) return 0;
  check_all(*value);
  for (const char* key : {"model", "attachments", "usage", "conversation", "models", "loaded"}) {
    check_all(json{{key, *value}, {"text", "x"}, {"projectId", "p"}, {"id", "i"}});
  }
  return 0;
}
