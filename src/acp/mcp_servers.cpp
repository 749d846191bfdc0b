#include "ava/acp/mcp_servers.hpp"

#include <fmt/format.h>

namespace ava::acp {

namespace {

using nlohmann::json;

Result<std::string> text(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) {
    return fail(ErrorCode::invalid_argument, fmt::format("{}: {} must be a string", where, key));
  }
  return found->get<std::string>();
}

// [{name, value}] -> {name: value}
Result<json> pairs(const json& object, const char* key, const std::string& where) {
  json out = json::object();
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return out;
  if (!found->is_array()) {
    return fail(ErrorCode::invalid_argument, fmt::format("{}: {} must be an array", where, key));
  }
  for (const auto& pair : *found) {
    if (!pair.is_object()) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("{}: {} holds {{name, value}} objects", where, key));
    }
    AVA_TRY(auto name, text(pair, "name", where + " " + key));
    AVA_TRY(auto value, text(pair, "value", where + " " + key));
    out[name] = std::move(value);
  }
  return out;
}

}  // namespace

Result<json> mcp_servers_document(const json& servers) {
  json document = json::object();
  if (servers.is_null()) return document;
  if (!servers.is_array()) return fail(ErrorCode::invalid_argument, "mcpServers must be an array");
  for (const auto& server : servers) {
    if (!server.is_object()) {
      return fail(ErrorCode::invalid_argument, "mcpServers holds server objects");
    }
    AVA_TRY(auto name, text(server, "name", "an MCP server"));
    const std::string where = "MCP server " + name.substr(0, 64);
    if (document.contains(name)) {
      return fail(ErrorCode::invalid_argument, where + " is given twice");
    }
    const auto type = server.value("type", std::string());
    json entry;
    if (type == "http") {
      AVA_TRY(auto url, text(server, "url", where));
      AVA_TRY(auto headers, pairs(server, "headers", where));
      entry = {{"type", "http"}, {"url", std::move(url)}, {"headers", std::move(headers)}};
    } else if (type.empty() || type == "stdio") {
      AVA_TRY(auto command, text(server, "command", where));
      json args = server.value("args", json::array());
      if (!args.is_array() ||
          !std::ranges::all_of(args, [](const json& arg) { return arg.is_string(); })) {
        return fail(ErrorCode::invalid_argument, where + ": args must be an array of strings");
      }
      AVA_TRY(auto env, pairs(server, "env", where));
      entry = {{"command", std::move(command)}, {"args", std::move(args)}, {"env", std::move(env)}};
    } else {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("{}: transport \"{}\" is not supported (stdio, http)", where,
                              type.substr(0, 20)));
    }
    document[name] = std::move(entry);
  }
  return document;
}

}  // namespace ava::acp
