#pragma once

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

namespace ava::acp {

// The `mcpServers` of session/new and session/load (ACP's array of stdio
// {name, command, args, env: [{name, value}]} and http {type: "http",
// name, url, headers: [{name, value}]} servers) as the common mcpServers
// object Ava's configuration reads ({NAME: {command, args, env} | {type:
// "http", url, headers}}), which then checks names, commands and URLs.
// invalid_argument for a malformed entry, an SSE server (not offered in
// the capabilities) or a name given twice.
Result<nlohmann::json> mcp_servers_document(const nlohmann::json& servers);

}  // namespace ava::acp
