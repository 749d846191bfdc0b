#include "support/fake_echo.hpp"

#include <atomic>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "support/wire_sse.hpp"

namespace ava::test {
namespace {

using nlohmann::json;

struct LastMessage {
  bool tool_result = false;
  std::string text;
};

std::string text_of(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        text += part["text"].get<std::string>();
      if (part.is_object() && part.contains("content")) text += text_of(part["content"]);
    }
  }
  return text;
}

LastMessage last_message(llm::WireApi api, const json& body) {
  LastMessage last;
  if (api == llm::WireApi::openai_responses) {
    const auto& input = body.value("input", json::array());
    if (input.empty()) return last;
    const auto& item = input.back();
    if (item.value("type", "") == "function_call_output") {
      last.tool_result = true;
      last.text = text_of(item.value("output", json()));
    } else {
      last.text = text_of(item.value("content", json()));
    }
    return last;
  }
  const auto& messages = body.value("messages", json::array());
  if (messages.empty()) return last;
  const auto& message = messages.back();
  if (message.value("role", "") == "tool") {
    last.tool_result = true;
    last.text = text_of(message.value("content", json()));
    return last;
  }
  const auto& content = message.value("content", json());
  // Anthropic puts tool results and the next user text in one message: the
  // last block says what the model answers.
  // Images (attachments) come after the text; the text is what is echoed.
  auto answered = content.is_array() ? content.end() : json::const_iterator();
  if (content.is_array()) {
    while (answered != content.begin() && std::prev(answered)->is_object() &&
           std::prev(answered)->value("type", "") == "image")
      --answered;
  }
  if (content.is_array() && answered != content.begin() && std::prev(answered)->is_object()) {
    const auto& block = *std::prev(answered);
    last.tool_result = block.value("type", "") == "tool_result";
    last.text =
        last.tool_result ? text_of(block.value("content", json())) : text_of(json::array({block}));
    return last;
  }
  last.text = text_of(content);
  return last;
}

}  // namespace

FakeReply echo_reply(llm::WireApi api, const RecordedRequest& request) {
  static std::atomic<int> calls{0};
  const int call = ++calls;
  auto body = json::parse(request.body, nullptr, false);
  if (body.is_discarded())
    return FakeReply{.status = 400, .content_type = "application/json", .chunks = {"{}"}};
  const LastMessage last = last_message(api, body);
  llm::MockResponse response;
  response.usage = {.input_tokens = 10, .output_tokens = 5};
  std::chrono::milliseconds delay{0};
  if (last.tool_result) {
    response.steps.emplace_back(
        llm::TextBlock{"done: " + last.text.substr(0, last.text.find('\n'))});
  } else if (last.text.rfind("bash: ", 0) == 0) {
    const json arguments{{"command", last.text.substr(6)}};
    response.steps.emplace_back(llm::ToolCallBlock{
        .id = "call_" + std::to_string(call), .name = "bash", .arguments = arguments.dump()});
  } else if (last.text.rfind("tool: ", 0) == 0) {
    // "tool: NAME {json arguments}": any tool, e.g. an MCP server's.
    const std::string rest = last.text.substr(6);
    const std::size_t space = rest.find(' ');
    const std::string arguments = space == std::string::npos ? "{}" : rest.substr(space + 1);
    response.steps.emplace_back(llm::ToolCallBlock{.id = "call_" + std::to_string(call),
                                                   .name = rest.substr(0, space),
                                                   .arguments = arguments});
  } else if (last.text.rfind("slow: ", 0) == 0) {
    const std::string rest = last.text.substr(6);
    const std::size_t colon = rest.find(": ");
    delay = std::chrono::milliseconds(std::atoi(rest.c_str()));
    std::string text = colon == std::string::npos ? rest : rest.substr(colon + 2);
    // One text block per word: each becomes its own delta event.
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find(' ', start);
      const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
      response.steps.emplace_back(llm::TextBlock{text.substr(start, stop - start)});
      start = stop;
    }
  } else {
    response.steps.emplace_back(llm::TextBlock{"echo: " + last.text});
  }
  return FakeReply{.chunks = chunks_per_event(render_sse(api, response)), .chunk_delay = delay};
}

}  // namespace ava::test
