#include "ava/mcp/client.hpp"

#include <set>

#include <fmt/format.h>

#include "ava/base/json.hpp"

namespace ava::mcp {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::string text_field(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// Every item of `key` over all pages, in the server's order.
asio::awaitable<Result<std::vector<json>>> list_all(Session& session, std::string method,
                                                    std::string key, ListOptions options) {
  std::vector<json> items;
  std::set<std::string> cursors_seen;
  std::optional<std::string> cursor;
  for (int page = 0;; ++page) {
    if (page >= options.max_pages) {
      co_return fail(ErrorCode::protocol,
                     fmt::format("{}: {} has more than {} pages", session.describe(), method,
                                 options.max_pages));
    }
    json params = json::object();
    if (cursor) params["cursor"] = *cursor;
    RequestOptions request_options{.timeout = options.timeout};
    auto answer = co_await session.request(method, std::move(params), request_options);
    if (!answer) co_return std::unexpected(std::move(answer).error());
    const json& result = *answer;
    const auto list = result.is_object() ? result.find(key) : result.end();
    if (list == result.end() || !list->is_array()) {
      co_return fail(ErrorCode::protocol,
                     fmt::format("{}: {} answer has no {} array", session.describe(), method, key));
    }
    for (const auto& item : *list) {
      if (item.is_object()) items.push_back(item);
    }
    const auto next = result.find("nextCursor");
    if (next == result.end() || !next->is_string()) break;
    if (!cursors_seen.insert(next->get<std::string>()).second) {
      co_return fail(ErrorCode::protocol,
                     fmt::format("{}: {} repeated cursor {}", session.describe(), method,
                                 next->get<std::string>()));
    }
    cursor = next->get<std::string>();
  }
  co_return items;
}

}  // namespace

asio::awaitable<Result<std::vector<ToolInfo>>> list_tools(Session& session, ListOptions options) {
  std::string method = "tools/list";
  std::string key = "tools";
  auto items = co_await list_all(session, std::move(method), std::move(key), options);
  if (!items) co_return std::unexpected(std::move(items).error());
  std::vector<ToolInfo> tools;
  for (const auto& item : *items) {
    ToolInfo tool{.name = text_field(item, "name"),
                  .title = text_field(item, "title"),
                  .description = text_field(item, "description")};
    if (tool.name.empty()) continue;
    if (const auto schema = item.find("inputSchema"); schema != item.end() && schema->is_object()) {
      tool.input_schema = *schema;
    }
    if (const auto schema = item.find("outputSchema"); schema != item.end()) {
      tool.output_schema = *schema;
    }
    if (const auto hints = item.find("annotations"); hints != item.end()) tool.annotations = *hints;
    tools.push_back(std::move(tool));
  }
  co_return tools;
}

asio::awaitable<Result<std::vector<ResourceInfo>>> list_resources(Session& session,
                                                                  ListOptions options) {
  std::string method = "resources/list";
  std::string key = "resources";
  auto items = co_await list_all(session, std::move(method), std::move(key), options);
  if (!items) co_return std::unexpected(std::move(items).error());
  std::vector<ResourceInfo> resources;
  for (const auto& item : *items) {
    ResourceInfo resource{.uri = text_field(item, "uri"),
                          .name = text_field(item, "name"),
                          .title = text_field(item, "title"),
                          .description = text_field(item, "description"),
                          .mime_type = text_field(item, "mimeType")};
    if (const auto size = item.find("size"); size != item.end() && size->is_number_integer()) {
      resource.size = size->get<std::int64_t>();
    }
    if (!resource.uri.empty()) resources.push_back(std::move(resource));
  }
  co_return resources;
}

asio::awaitable<Result<std::vector<PromptInfo>>> list_prompts(Session& session,
                                                              ListOptions options) {
  std::string method = "prompts/list";
  std::string key = "prompts";
  auto items = co_await list_all(session, std::move(method), std::move(key), options);
  if (!items) co_return std::unexpected(std::move(items).error());
  std::vector<PromptInfo> prompts;
  for (const auto& item : *items) {
    PromptInfo prompt{.name = text_field(item, "name"),
                      .title = text_field(item, "title"),
                      .description = text_field(item, "description")};
    if (const auto args = item.find("arguments"); args != item.end() && args->is_array()) {
      for (const auto& arg : *args) {
        if (!arg.is_object()) continue;
        prompt.arguments.push_back({.name = text_field(arg, "name"),
                                    .description = text_field(arg, "description"),
                                    .required = base::json_value(arg, "required", false)});
      }
    }
    if (!prompt.name.empty()) prompts.push_back(std::move(prompt));
  }
  co_return prompts;
}

asio::awaitable<Result<json>> call_tool(Session& session, std::string name, json arguments,
                                        RequestOptions options) {
  json params{{"name", std::move(name)},
              {"arguments", arguments.is_object() ? std::move(arguments) : json::object()}};
  std::string method = "tools/call";
  auto answer = co_await session.request(std::move(method), std::move(params), std::move(options));
  if (!answer) co_return std::unexpected(std::move(answer).error());
  if (!answer->is_object()) {
    co_return fail(ErrorCode::protocol,
                   fmt::format("{}: tools/call answer is not an object", session.describe()));
  }
  co_return std::move(*answer);
}

}  // namespace ava::mcp
