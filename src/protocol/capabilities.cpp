#include "ava/protocol/capabilities.hpp"

#include "ava/protocol/automations.hpp"

namespace ava::protocol {

Result<void> Shape<McpSwitch>::check(const McpSwitch& value) {
  if (!value.enabled) return fail(ErrorCode::invalid_argument, "enabled must be true or false");
  return {};
}

Result<AutomationRequest> parse_automation_request(const nlohmann::json& json) {
  return from_json<AutomationRequest>(json);
}

}  // namespace ava::protocol
