#include "support/wire_sse.hpp"

#include <nlohmann/json.hpp>

#include "ava/llm/event_json.hpp"
#include "ava/transport/sse.hpp"

namespace ava::test {

namespace {

using nlohmann::json;

std::string frame(const std::string& event, const json& data) {
  return *transport::encode_sse({.event = event, .data = data.dump()});
}

// Halves, so every text and argument arrives in more than one delta.
std::pair<std::string, std::string> halves(const std::string& text) {
  std::size_t middle = text.size() / 2;
  return {text.substr(0, middle), text.substr(middle)};
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

bool has_calls(const llm::MockResponse& response) {
  for (const auto& step : response.steps) {
    if (std::holds_alternative<llm::ToolCallBlock>(step)) return true;
  }
  return false;
}

std::string error_type(llm::ErrorKind kind) {
  switch (kind) {
    case llm::ErrorKind::overloaded: return "overloaded_error";
    case llm::ErrorKind::rate_limited: return "rate_limit_error";
    case llm::ErrorKind::server: return "api_error";
    case llm::ErrorKind::invalid_request: return "invalid_request_error";
    case llm::ErrorKind::authentication: return "authentication_error";
    default: return "api_error";
  }
}

std::string openai_code(llm::ErrorKind kind) {
  switch (kind) {
    case llm::ErrorKind::overloaded: return "overloaded";
    case llm::ErrorKind::rate_limited: return "rate_limit_exceeded";
    case llm::ErrorKind::server: return "server_error";
    case llm::ErrorKind::invalid_request: return "invalid_request_error";
    case llm::ErrorKind::authentication: return "invalid_api_key";
    default: return "server_error";
  }
}

std::string stop_word(llm::WireApi api, const llm::MockResponse& response) {
  llm::StopReason reason =
      response.stop ? response.stop->reason
                    : (has_calls(response) ? llm::StopReason::tool_use : llm::StopReason::end_turn);
  if (api == llm::WireApi::openai_chat) {
    switch (reason) {
      case llm::StopReason::tool_use: return "tool_calls";
      case llm::StopReason::max_tokens: return "length";
      case llm::StopReason::refusal: return "content_filter";
      default: return "stop";
    }
  }
  return std::string(
      llm::to_string(reason == llm::StopReason::pause ? llm::StopReason::end_turn : reason));
}

std::string render_anthropic(const llm::MockResponse& response) {
  const llm::Usage& usage = response.usage;
  std::string body =
      frame("message_start", {{"type", "message_start"},
                              {"message",
                               {{"id", "msg_fake"},
                                {"type", "message"},
                                {"role", "assistant"},
                                {"content", json::array()},
                                {"model", "fake"},
                                {"usage",
                                 {{"input_tokens", usage.input_tokens},
                                  {"cache_read_input_tokens", usage.cache_read_tokens},
                                  {"cache_creation_input_tokens", usage.cache_write_tokens},
                                  {"output_tokens", 1}}}}}});
  int index = 0;
  for (const auto& step : response.steps) {
    bool stop = false;
    std::visit(
        Overloaded{
            [&](const llm::TextBlock& text) {
              auto [a, b] = halves(text.text);
              body += frame("content_block_start",
                            {{"type", "content_block_start"},
                             {"index", index},
                             {"content_block", {{"type", "text"}, {"text", ""}}}});
              body +=
                  frame("content_block_delta", {{"type", "content_block_delta"},
                                                {"index", index},
                                                {"delta", {{"type", "text_delta"}, {"text", a}}}});
              body +=
                  frame("content_block_delta", {{"type", "content_block_delta"},
                                                {"index", index},
                                                {"delta", {{"type", "text_delta"}, {"text", b}}}});
              body +=
                  frame("content_block_stop", {{"type", "content_block_stop"}, {"index", index++}});
            },
            [&](const llm::ThinkingBlock& thinking) {
              body += frame(
                  "content_block_start",
                  {{"type", "content_block_start"},
                   {"index", index},
                   {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}});
              body += frame("content_block_delta",
                            {{"type", "content_block_delta"},
                             {"index", index},
                             {"delta", {{"type", "thinking_delta"}, {"thinking", thinking.text}}}});
              body += frame(
                  "content_block_delta",
                  {{"type", "content_block_delta"},
                   {"index", index},
                   {"delta", {{"type", "signature_delta"}, {"signature", thinking.signature}}}});
              body +=
                  frame("content_block_stop", {{"type", "content_block_stop"}, {"index", index++}});
            },
            [&](const llm::ToolCallBlock& call) {
              auto [a, b] = halves(call.arguments);
              body += frame("content_block_start", {{"type", "content_block_start"},
                                                    {"index", index},
                                                    {"content_block",
                                                     {{"type", "tool_use"},
                                                      {"id", call.id},
                                                      {"name", call.name},
                                                      {"input", json::object()}}}});
              for (const auto& part : {std::string(), a, b}) {
                body += frame("content_block_delta",
                              {{"type", "content_block_delta"},
                               {"index", index},
                               {"delta", {{"type", "input_json_delta"}, {"partial_json", part}}}});
              }
              body +=
                  frame("content_block_stop", {{"type", "content_block_stop"}, {"index", index++}});
            },
            [&](const llm::StreamError& error) {
              body += frame(
                  "error",
                  {{"type", "error"},
                   {"error", {{"type", error_type(error.kind)}, {"message", error.message}}}});
              stop = true;
            },
            [](const llm::MockDelay&) {},
        },
        step);
    if (stop) return body;
  }
  body += frame("message_delta",
                {{"type", "message_delta"},
                 {"delta",
                  {{"stop_reason", stop_word(llm::WireApi::anthropic_messages, response)},
                   {"stop_sequence", nullptr}}},
                 {"usage", {{"output_tokens", usage.output_tokens}}}});
  body += frame("message_stop", {{"type", "message_stop"}});
  return body;
}

std::string render_chat(const llm::MockResponse& response) {
  auto chunk = [](const json& delta, const json& finish = nullptr) {
    return frame(
        "",
        {{"id", "chatcmpl-fake"},
         {"object", "chat.completion.chunk"},
         {"model", "fake"},
         {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}});
  };
  std::string body = chunk({{"role", "assistant"}, {"content", ""}});
  int call_index = 0;
  for (const auto& step : response.steps) {
    bool stop = false;
    std::visit(
        Overloaded{
            [&](const llm::TextBlock& text) {
              auto [a, b] = halves(text.text);
              body += chunk({{"content", a}});
              body += chunk({{"content", b}});
            },
            [&](const llm::ThinkingBlock& thinking) {
              body += chunk({{"reasoning_content", thinking.text}});
            },
            [&](const llm::ToolCallBlock& call) {
              auto [a, b] = halves(call.arguments);
              body += chunk(
                  {{"tool_calls",
                    json::array({{{"index", call_index},
                                  {"id", call.id},
                                  {"type", "function"},
                                  {"function", {{"name", call.name}, {"arguments", ""}}}}})}});
              body += chunk({{"tool_calls", json::array({{{"index", call_index},
                                                          {"function", {{"arguments", a}}}}})}});
              body += chunk({{"tool_calls", json::array({{{"index", call_index},
                                                          {"function", {{"arguments", b}}}}})}});
              ++call_index;
            },
            [&](const llm::StreamError& error) {
              body += frame(
                  "error",
                  {{"error", {{"message", error.message}, {"code", openai_code(error.kind)}}}});
              stop = true;
            },
            [](const llm::MockDelay&) {},
        },
        step);
    if (stop) return body;
  }
  body += chunk(json::object(), stop_word(llm::WireApi::openai_chat, response));
  const llm::Usage& usage = response.usage;
  body += frame(
      "", {{"id", "chatcmpl-fake"},
           {"object", "chat.completion.chunk"},
           {"choices", json::array()},
           {"usage",
            {{"prompt_tokens", usage.input_tokens + usage.cache_read_tokens},
             {"completion_tokens", usage.output_tokens},
             {"prompt_tokens_details", {{"cached_tokens", usage.cache_read_tokens}}},
             {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}}}}});
  body += "data: [DONE]\n\n";
  return body;
}

std::string render_responses(const llm::MockResponse& response) {
  const llm::Usage& usage = response.usage;
  json usage_json{{"input_tokens", usage.input_tokens + usage.cache_read_tokens},
                  {"input_tokens_details", {{"cached_tokens", usage.cache_read_tokens}}},
                  {"output_tokens", usage.output_tokens},
                  {"output_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}}};
  int sequence = 0;
  auto event = [&](const std::string& type, json data) {
    data["type"] = type;
    data["sequence_number"] = sequence++;
    return frame(type, data);
  };
  std::string body =
      event("response.created",
            {{"response", {{"id", "resp_fake"}, {"status", "in_progress"}, {"usage", nullptr}}}});
  int index = 0;
  for (const auto& step : response.steps) {
    bool stop = false;
    std::visit(
        Overloaded{
            [&](const llm::TextBlock& text) {
              std::string id = "msg_" + std::to_string(index);
              auto [a, b] = halves(text.text);
              body += event("response.output_item.added", {{"output_index", index},
                                                           {"item",
                                                            {{"type", "message"},
                                                             {"id", id},
                                                             {"role", "assistant"},
                                                             {"content", json::array()}}}});
              body += event(
                  "response.output_text.delta",
                  {{"output_index", index}, {"item_id", id}, {"content_index", 0}, {"delta", a}});
              body += event(
                  "response.output_text.delta",
                  {{"output_index", index}, {"item_id", id}, {"content_index", 0}, {"delta", b}});
              body += event(
                  "response.output_item.done",
                  {{"output_index", index++},
                   {"item",
                    {{"type", "message"},
                     {"id", id},
                     {"role", "assistant"},
                     {"status", "completed"},
                     {"content", json::array({{{"type", "output_text"}, {"text", text.text}}})}}}});
            },
            [&](const llm::ThinkingBlock& thinking) {
              std::string id = "rs_" + std::to_string(index);
              body += event(
                  "response.output_item.added",
                  {{"output_index", index},
                   {"item", {{"type", "reasoning"}, {"id", id}, {"summary", json::array()}}}});
              body += event("response.reasoning_summary_text.delta", {{"output_index", index},
                                                                      {"item_id", id},
                                                                      {"summary_index", 0},
                                                                      {"delta", thinking.text}});
              body +=
                  event("response.output_item.done",
                        {{"output_index", index++},
                         {"item",
                          {{"type", "reasoning"},
                           {"id", id},
                           {"encrypted_content", thinking.signature},
                           {"summary",
                            json::array({{{"type", "summary_text"}, {"text", thinking.text}}})}}}});
            },
            [&](const llm::ToolCallBlock& call) {
              std::string id = "fc_" + std::to_string(index);
              auto [a, b] = halves(call.arguments);
              body += event("response.output_item.added", {{"output_index", index},
                                                           {"item",
                                                            {{"type", "function_call"},
                                                             {"id", id},
                                                             {"call_id", call.id},
                                                             {"name", call.name},
                                                             {"arguments", ""}}}});
              body += event("response.function_call_arguments.delta",
                            {{"output_index", index}, {"item_id", id}, {"delta", a}});
              body += event("response.function_call_arguments.delta",
                            {{"output_index", index}, {"item_id", id}, {"delta", b}});
              body += event("response.output_item.done", {{"output_index", index++},
                                                          {"item",
                                                           {{"type", "function_call"},
                                                            {"id", id},
                                                            {"call_id", call.id},
                                                            {"name", call.name},
                                                            {"arguments", call.arguments},
                                                            {"status", "completed"}}}});
            },
            [&](const llm::StreamError& error) {
              json detail{{"type", openai_code(error.kind)},
                          {"code", openai_code(error.kind)},
                          {"message", error.message}};
              body += event("error", {{"error", detail}});
              body += event("response.failed", {{"response",
                                                 {{"id", "resp_fake"},
                                                  {"status", "failed"},
                                                  {"error", detail},
                                                  {"usage", usage_json}}}});
              stop = true;
            },
            [](const llm::MockDelay&) {},
        },
        step);
    if (stop) return body;
  }
  bool cut_off = response.stop && response.stop->reason == llm::StopReason::max_tokens;
  json terminal{
      {"id", "resp_fake"}, {"status", cut_off ? "incomplete" : "completed"}, {"usage", usage_json}};
  if (cut_off) terminal["incomplete_details"] = {{"reason", "max_output_tokens"}};
  body += event(cut_off ? "response.incomplete" : "response.completed", {{"response", terminal}});
  return body;
}

}  // namespace

std::string render_sse(llm::WireApi api, const llm::MockResponse& response) {
  switch (api) {
    case llm::WireApi::anthropic_messages: return render_anthropic(response);
    case llm::WireApi::openai_chat: return render_chat(response);
    case llm::WireApi::openai_responses: return render_responses(response);
  }
  return {};
}

}  // namespace ava::test
