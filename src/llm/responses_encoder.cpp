#include <set>
#include <string>

#include "ava/llm/encode.hpp"
#include "llm/encode_support.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

// Extended-thinking budgets map onto the Responses reasoning effort levels.
std::string effort_for_budget(std::int64_t budget) {
  if (budget <= 2048) return "low";
  if (budget <= 16384) return "medium";
  return "high";
}

struct CallPairs {
  std::set<std::string> calls;
  std::set<std::string> results;
};

CallPairs collect_pairs(const Request& request) {
  CallPairs pairs;
  for (const auto& message : request.messages) {
    for (const auto& block : message.content) {
      if (const auto* call = std::get_if<ToolCallBlock>(&block)) pairs.calls.insert(call->id);
      if (const auto* result = std::get_if<ToolResultBlock>(&block))
        pairs.results.insert(result->call_id);
    }
  }
  return pairs;
}

void append_message(json& input, const Message& message, const CallPairs& pairs) {
  bool assistant = message.role == Role::assistant;
  json parts = json::array();
  auto flush_parts = [&] {
    if (parts.empty()) return;
    input.push_back(
        json{{"type", "message"}, {"role", assistant ? "assistant" : "user"}, {"content", parts}});
    parts = json::array();
  };
  for (const auto& block : message.content) {
    if (const auto* text = std::get_if<TextBlock>(&block)) {
      parts.push_back(
          json{{"type", assistant ? "output_text" : "input_text"}, {"text", text->text}});
    } else if (const auto* image = std::get_if<ImageBlock>(&block)) {
      if (!assistant)
        parts.push_back(json{{"type", "input_image"}, {"image_url", detail::data_url(*image)}});
    } else if (const auto* thinking = std::get_if<ThinkingBlock>(&block)) {
      // Only reasoning this API produced (encrypted, with its item id) replays.
      if (thinking->encrypted_content.empty()) continue;
      flush_parts();
      json summary = json::array();
      if (!thinking->text.empty())
        summary.push_back(json{{"type", "summary_text"}, {"text", thinking->text}});
      json item{{"type", "reasoning"},
                {"summary", summary},
                {"encrypted_content", thinking->encrypted_content}};
      if (!thinking->provider_id.empty()) item["id"] = thinking->provider_id;
      input.push_back(std::move(item));
    } else if (const auto* call = std::get_if<ToolCallBlock>(&block)) {
      if (!pairs.results.contains(call->id)) continue;
      flush_parts();
      input.push_back(json{{"type", "function_call"},
                           {"call_id", call->id},
                           {"name", call->name},
                           {"arguments", call->arguments}});
    } else if (const auto* result = std::get_if<ToolResultBlock>(&block)) {
      if (!pairs.calls.contains(result->call_id)) continue;
      flush_parts();
      input.push_back(json{{"type", "function_call_output"},
                           {"call_id", result->call_id},
                           {"output", detail::tool_result_text(*result)}});
    }
  }
  flush_parts();
}

}  // namespace

std::string encode_responses_request(const Request& request) {
  json body{{"model", request.model}, {"stream", true}, {"store", false}};
  if (!request.system.empty()) body["instructions"] = request.system;
  if (request.max_output_tokens) body["max_output_tokens"] = *request.max_output_tokens;
  if (request.thinking_budget_tokens) {
    body["reasoning"] = {{"effort", effort_for_budget(*request.thinking_budget_tokens)},
                         {"summary", "auto"}};
    body["include"] = json::array({"reasoning.encrypted_content"});
  }
  CallPairs pairs = collect_pairs(request);
  json input = json::array();
  for (const auto& message : request.messages) append_message(input, message, pairs);
  body["input"] = input;
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const auto& tool : request.tools) {
      json schema = tool.parameters.is_object() ? tool.parameters : json{{"type", "object"}};
      tools.push_back(json{{"type", "function"},
                           {"name", tool.name},
                           {"description", tool.description},
                           {"parameters", schema}});
    }
    body["tools"] = tools;
  }
  return detail::dump_body(body);
}

std::string encode_request(WireApi api, const Request& request) {
  switch (api) {
    case WireApi::anthropic_messages: return encode_anthropic_request(request);
    case WireApi::openai_chat: return encode_chat_request(request);
    case WireApi::openai_responses: return encode_responses_request(request);
  }
  return encode_anthropic_request(request);
}

}  // namespace ava::llm
