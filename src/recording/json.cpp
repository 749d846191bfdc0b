#include "ava/recording/json.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/llm/event_json.hpp"

namespace ava::recording {
namespace {

using nlohmann::json;

template <class... Fs>
struct Overload : Fs... {
  using Fs::operator()...;
};

// Thrown only inside this file: the public decoders turn it into an Error.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string at(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

const json& field(const json& object, const std::string& path, const std::string& key) {
  if (!object.is_object())
    throw DecodeError(path.empty() ? "expected an object" : path + ": expected an object");
  const auto it = object.find(key);
  if (it == object.end()) throw DecodeError(at(path, key) + ": missing");
  return *it;
}

std::string text(const json& object, const std::string& path, const std::string& key) {
  const json& value = field(object, path, key);
  if (!value.is_string()) throw DecodeError(at(path, key) + ": expected a string");
  return value.get<std::string>();
}

std::string text_or_empty(const json& object, const std::string& path, const std::string& key) {
  return object.contains(key) ? text(object, path, key) : std::string();
}

std::int64_t integer(const json& object, const std::string& path, const std::string& key) {
  const json& value = field(object, path, key);
  if (!value.is_number_integer()) throw DecodeError(at(path, key) + ": expected an integer");
  return value.get<std::int64_t>();
}

bool boolean(const json& object, const std::string& path, const std::string& key) {
  const json& value = field(object, path, key);
  if (!value.is_boolean()) throw DecodeError(at(path, key) + ": expected true or false");
  return value.get<bool>();
}

const json& array(const json& object, const std::string& path, const std::string& key) {
  const json& value = field(object, path, key);
  if (!value.is_array()) throw DecodeError(at(path, key) + ": expected an array");
  return value;
}

// An enum from its to_string name, for the enums llm names.
template <class E>
E enum_named(const std::string& name, E last, const std::string& where) {
  for (int i = 0; i <= static_cast<int>(last); ++i) {
    if (llm::to_string(static_cast<E>(i)) == name) return static_cast<E>(i);
  }
  throw DecodeError(fmt::format("{}: unknown value \"{}\"", where, name));
}

json usage_json(const content::Usage& usage) {
  return {{"inputTokens", usage.input_tokens},
          {"outputTokens", usage.output_tokens},
          {"cacheReadTokens", usage.cache_read_tokens},
          {"cacheWriteTokens", usage.cache_write_tokens},
          {"reasoningTokens", usage.reasoning_tokens}};
}

content::Usage usage_of(const json& value, const std::string& path) {
  return {.input_tokens = integer(value, path, "inputTokens"),
          .output_tokens = integer(value, path, "outputTokens"),
          .cache_read_tokens = integer(value, path, "cacheReadTokens"),
          .cache_write_tokens = integer(value, path, "cacheWriteTokens"),
          .reasoning_tokens = integer(value, path, "reasoningTokens")};
}

json image_json(const content::ImageBlock& image) {
  return {{"type", "image"}, {"mediaType", image.media_type}, {"data", image.data}};
}

json call_json(const content::ToolCallBlock& call) {
  return {
      {"type", "toolCall"}, {"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
}

content::ToolCallBlock call_of(const json& value, const std::string& path) {
  return {.id = text(value, path, "id"),
          .name = text(value, path, "name"),
          .arguments = text(value, path, "arguments")};
}

json block_json(const content::ContentBlock& block) {
  return std::visit(Overload{[](const content::TextBlock& b) {
                               return json{{"type", "text"}, {"text", b.text}};
                             },
                             [](const content::ImageBlock& b) { return image_json(b); },
                             [](const content::ThinkingBlock& b) {
                               return json{{"type", "thinking"},
                                           {"text", b.text},
                                           {"signature", b.signature},
                                           {"redactedData", b.redacted_data},
                                           {"encryptedContent", b.encrypted_content},
                                           {"providerId", b.provider_id}};
                             },
                             [](const content::ToolCallBlock& b) { return call_json(b); },
                             [](const content::ToolResultBlock& b) {
                               return json{{"type", "toolResult"},
                                           {"callId", b.call_id},
                                           {"content", encode_tool_content(b.content)},
                                           {"isError", b.is_error}};
                             }},
                    block);
}

std::vector<content::ToolResultContent> tool_content_of(const json& value, const std::string& path);

content::ContentBlock block_of(const json& value, const std::string& path) {
  const std::string type = text(value, path, "type");
  if (type == "text") return content::TextBlock{text(value, path, "text")};
  if (type == "image") {
    return content::ImageBlock{.media_type = text(value, path, "mediaType"),
                               .data = text(value, path, "data")};
  }
  if (type == "thinking") {
    return content::ThinkingBlock{
        .text = text(value, path, "text"),
        .signature = text_or_empty(value, path, "signature"),
        .redacted_data = text_or_empty(value, path, "redactedData"),
        .encrypted_content = text_or_empty(value, path, "encryptedContent"),
        .provider_id = text_or_empty(value, path, "providerId")};
  }
  if (type == "toolCall") return call_of(value, path);
  if (type == "toolResult") {
    return content::ToolResultBlock{
        .call_id = text(value, path, "callId"),
        .content = tool_content_of(array(value, path, "content"), at(path, "content")),
        .is_error = boolean(value, path, "isError")};
  }
  throw DecodeError(fmt::format("{}: unknown block kind \"{}\"", at(path, "type"), type));
}

std::vector<content::ToolResultContent> tool_content_of(const json& value,
                                                        const std::string& path) {
  if (!value.is_array()) throw DecodeError(path + ": expected an array");
  std::vector<content::ToolResultContent> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", path, i);
    auto block = block_of(value[i], where);
    if (auto* t = std::get_if<content::TextBlock>(&block)) {
      out.emplace_back(std::move(*t));
    } else if (auto* image = std::get_if<content::ImageBlock>(&block)) {
      out.emplace_back(std::move(*image));
    } else {
      throw DecodeError(where + ": a tool result holds only text and images");
    }
  }
  return out;
}

content::Role role_of(const std::string& name, const std::string& where) {
  if (name == "user") return content::Role::user;
  if (name == "assistant") return content::Role::assistant;
  if (name == "tool") return content::Role::tool;
  throw DecodeError(fmt::format("{}: unknown role \"{}\"", where, name));
}

std::string_view role_name(content::Role role) {
  switch (role) {
    case content::Role::user: return "user";
    case content::Role::assistant: return "assistant";
    case content::Role::tool: return "tool";
  }
  return "user";
}

llm::Message message_of(const json& value, const std::string& path) {
  llm::Message message{.role = role_of(text(value, path, "role"), at(path, "role"))};
  const json& blocks = array(value, path, "content");
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    message.content.push_back(block_of(blocks[i], fmt::format("{}.content[{}]", path, i)));
  }
  return message;
}

json stop_json(const llm::Stop& stop) {
  return {{"reason", llm::to_string(stop.reason)}, {"providerReason", stop.provider_reason}};
}

llm::Stop stop_of(const json& value, const std::string& path) {
  return {
      .reason = enum_named(text(value, path, "reason"), llm::StopReason::other, at(path, "reason")),
      .provider_reason = text(value, path, "providerReason")};
}

json error_json(const llm::StreamError& error) {
  return {{"kind", llm::to_string(error.kind)},
          {"message", error.message},
          {"retryable", error.retryable}};
}

llm::StreamError error_of(const json& value, const std::string& path) {
  return {.kind = enum_named(text(value, path, "kind"), llm::ErrorKind::other, at(path, "kind")),
          .message = text(value, path, "message"),
          .retryable = boolean(value, path, "retryable")};
}

std::optional<std::int64_t> optional_integer(const json& value, const std::string& key) {
  if (!value.contains(key) || value[key].is_null()) return std::nullopt;
  return integer(value, "", key);
}

template <class F>
auto decoding(F&& decode) -> Result<decltype(decode())> {
  try {
    return decode();
  } catch (const DecodeError& error) {
    return fail(ErrorCode::invalid_argument, error.what());
  }
}

// A string cut to a window around `offset`, for a readable difference.
std::string excerpt(const std::string& text, std::size_t offset) {
  constexpr std::size_t window = 60;
  const std::size_t start = base::utf8::floor_boundary(text, offset > window ? offset - window : 0);
  const std::string cut(base::utf8::truncate(std::string_view(text).substr(start), 2 * window));
  return fmt::format("{}\"{}\"{} ({} chars)", start > 0 ? "…" : "", cut,
                     start + cut.size() < text.size() ? "…" : "", text.size());
}

std::string shown(const json& value) {
  std::string dumped = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (dumped.size() > 160) dumped = std::string(base::utf8::truncate(dumped, 160)) + "…";
  return dumped;
}

}  // namespace

json encode_tool_content(const std::vector<content::ToolResultContent>& content) {
  json out = json::array();
  for (const auto& part : content) {
    std::visit(Overload{[&](const content::TextBlock& b) {
                          out.push_back({{"type", "text"}, {"text", b.text}});
                        },
                        [&](const content::ImageBlock& b) { out.push_back(image_json(b)); }},
               part);
  }
  return out;
}

json encode_message(const llm::Message& message) {
  json blocks = json::array();
  for (const auto& block : message.content) blocks.push_back(block_json(block));
  return {{"role", role_name(message.role)}, {"content", std::move(blocks)}};
}

json encode_request(const llm::Request& request) {
  json messages = json::array();
  for (const auto& message : request.messages) messages.push_back(encode_message(message));
  json tools = json::array();
  for (const auto& spec : request.tools) {
    tools.push_back(
        {{"name", spec.name}, {"description", spec.description}, {"parameters", spec.parameters}});
  }
  json out{{"model", request.model},
           {"system", request.system},
           {"messages", std::move(messages)},
           {"tools", std::move(tools)},
           {"promptCaching", request.prompt_caching}};
  out["maxOutputTokens"] = request.max_output_tokens ? json(*request.max_output_tokens) : json();
  out["thinkingBudgetTokens"] =
      request.thinking_budget_tokens ? json(*request.thinking_budget_tokens) : json();
  return out;
}

json encode_event(const llm::StreamEvent& event) {
  return std::visit(
      Overload{[](const llm::TextDelta& e) {
                 return json{{"type", "textDelta"}, {"text", e.text}};
               },
               [](const llm::ThinkingDelta& e) {
                 return json{{"type", "thinkingDelta"}, {"text", e.text}};
               },
               [](const llm::ToolCallStart& e) {
                 return json{{"type", "toolCallStart"}, {"id", e.id}, {"name", e.name}};
               },
               [](const llm::ToolCallDelta& e) {
                 return json{
                     {"type", "toolCallDelta"}, {"id", e.id}, {"fragment", e.arguments_fragment}};
               },
               [](const llm::ToolCallComplete& e) {
                 return json{{"type", "toolCallComplete"}, {"call", call_json(e.call)}};
               },
               [](const llm::UsageReport& e) {
                 return json{{"type", "usage"}, {"usage", usage_json(e.usage)}};
               },
               [](const llm::Stop& e) {
                 return json{{"type", "stop"}, {"stop", stop_json(e)}};
               },
               [](const llm::StreamError& e) {
                 return json{{"type", "error"}, {"error", error_json(e)}};
               }},
      event);
}

json encode_response(const llm::Response& response) {
  json out{{"message", encode_message(response.message)},
           {"usage", usage_json(response.usage)},
           {"stop", stop_json(response.stop)}};
  out["error"] = response.error ? error_json(*response.error) : json();
  return out;
}

Result<llm::Request> decode_request(const json& value) {
  return decoding([&] {
    llm::Request request{.model = text(value, "", "model"), .system = text(value, "", "system")};
    const json& messages = array(value, "", "messages");
    for (std::size_t i = 0; i < messages.size(); ++i) {
      request.messages.push_back(message_of(messages[i], fmt::format("messages[{}]", i)));
    }
    const json& tools = array(value, "", "tools");
    for (std::size_t i = 0; i < tools.size(); ++i) {
      const std::string path = fmt::format("tools[{}]", i);
      request.tools.push_back({.name = text(tools[i], path, "name"),
                               .description = text(tools[i], path, "description"),
                               .parameters = field(tools[i], path, "parameters")});
    }
    request.prompt_caching = boolean(value, "", "promptCaching");
    request.max_output_tokens = optional_integer(value, "maxOutputTokens");
    request.thinking_budget_tokens = optional_integer(value, "thinkingBudgetTokens");
    return request;
  });
}

Result<llm::StreamEvent> decode_event(const json& value) {
  return decoding([&]() -> llm::StreamEvent {
    const std::string type = text(value, "", "type");
    if (type == "textDelta") return llm::TextDelta{text(value, "", "text")};
    if (type == "thinkingDelta") return llm::ThinkingDelta{text(value, "", "text")};
    if (type == "toolCallStart")
      return llm::ToolCallStart{text(value, "", "id"), text(value, "", "name")};
    if (type == "toolCallDelta") {
      return llm::ToolCallDelta{text(value, "", "id"), text(value, "", "fragment")};
    }
    if (type == "toolCallComplete")
      return llm::ToolCallComplete{call_of(field(value, "", "call"), "call")};
    if (type == "usage") return llm::UsageReport{usage_of(field(value, "", "usage"), "usage")};
    if (type == "stop") return stop_of(field(value, "", "stop"), "stop");
    if (type == "error") return error_of(field(value, "", "error"), "error");
    throw DecodeError(fmt::format("type: unknown stream event \"{}\"", type));
  });
}

Result<llm::Response> decode_response(const json& value) {
  return decoding([&] {
    llm::Response response{.message = message_of(field(value, "", "message"), "message"),
                           .usage = usage_of(field(value, "", "usage"), "usage"),
                           .stop = stop_of(field(value, "", "stop"), "stop")};
    if (value.contains("error") && !value["error"].is_null()) {
      response.error = error_of(value["error"], "error");
    }
    return response;
  });
}

Result<std::vector<content::ToolResultContent>> decode_tool_content(const json& value) {
  return decoding([&] { return tool_content_of(value, "content"); });
}

std::string first_difference(const json& recorded, const json& now) {
  // Walks both values together; `path` names where they part.
  std::string path;
  const json* a = &recorded;
  const json* b = &now;
  for (;;) {
    if (*a == *b) return {};
    if (a->is_object() && b->is_object()) {
      const json* next_a = nullptr;
      const json* next_b = nullptr;
      for (const auto& [key, value] : a->items()) {
        const auto other = b->find(key);
        if (other == b->end())
          return fmt::format("{}: recorded {}, now missing", at(path, key), shown(value));
        if (value != *other) {
          path = at(path, key);
          next_a = &value;
          next_b = &*other;
          break;
        }
      }
      if (!next_a) {
        for (const auto& [key, value] : b->items()) {
          if (!a->contains(key))
            return fmt::format("{}: not recorded, now {}", at(path, key), shown(value));
        }
        return {};
      }
      a = next_a;
      b = next_b;
      continue;
    }
    if (a->is_array() && b->is_array()) {
      const std::size_t common = std::min(a->size(), b->size());
      std::size_t i = 0;
      while (i < common && (*a)[i] == (*b)[i]) ++i;
      if (i == common) {
        return fmt::format("{}: recorded {} items, now {}", path.empty() ? "(top)" : path,
                           a->size(), b->size());
      }
      path += fmt::format("[{}]", i);
      a = &(*a)[i];
      b = &(*b)[i];
      continue;
    }
    const std::string where = path.empty() ? "(top)" : path;
    if (a->is_string() && b->is_string()) {
      const auto& x = a->get_ref<const std::string&>();
      const auto& y = b->get_ref<const std::string&>();
      const auto parted = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
      const auto offset = static_cast<std::size_t>(parted.first - x.begin());
      return fmt::format("{}: recorded {}, now {} (they part at character {})", where,
                         excerpt(x, offset), excerpt(y, offset), offset);
    }
    return fmt::format("{}: recorded {}, now {}", where, shown(*a), shown(*b));
  }
}

}  // namespace ava::recording
