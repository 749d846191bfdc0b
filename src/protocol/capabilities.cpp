#include "ava/protocol/capabilities.hpp"

namespace ava::protocol {

Result<void> Shape<McpSwitch>::check(const McpSwitch& value) {
  if (!value.enabled) return fail(ErrorCode::invalid_argument, "enabled must be true or false");
  return {};
}

}  // namespace ava::protocol
