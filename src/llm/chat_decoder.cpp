// OpenAI-compatible Chat Completions streaming: `data:` chunks ending with
// `data: [DONE]`; tool calls accumulated by index; usage in a final chunk
// (with stream_options.include_usage) or wherever a compatible server puts it.

#include <map>
#include <string>

#include "llm/decoder_base.hpp"
#include "llm/decoders.hpp"

namespace ava::llm::detail {

namespace {

struct PartialCall {
  std::string id;
  std::string name;
  std::string arguments;
  bool announced = false;
};

StopReason stop_reason_from_chat(std::string_view reason) {
  if (reason == "stop") return StopReason::end_turn;
  if (reason == "tool_calls" || reason == "function_call") return StopReason::tool_use;
  if (reason == "length") return StopReason::max_tokens;
  if (reason == "content_filter") return StopReason::refusal;
  return StopReason::other;
}

std::string code_text(const json& code) {
  if (code.is_string()) return code.get<std::string>();
  if (code.is_number_integer()) return std::to_string(code.get<std::int64_t>());
  return {};
}

class ChatDecoder final : public DecoderBase {
 public:
  explicit ChatDecoder(EventSink sink) : DecoderBase(std::move(sink), "[DONE]") {}

  void on_event(const transport::SseEvent& event) override {
    if (event.data == "[DONE]") {
      terminal_seen_ = true;
      return;
    }
    auto payload = parse_payload(event.data);
    if (!payload || !payload->is_object()) return;
    const json& chunk = *payload;
    read_usage(chunk);
    if (const json& error = member(chunk, "error"); !error.is_null() && error != false) {
      std::string code = code_text(member(error, "code"));
      if (code.empty()) code = str(error, "type");
      std::string message = error.is_string() ? error.get<std::string>() : str(error, "message");
      record_error(classify_error(code, std::move(message)));
    }
    const json& choices = member(chunk, "choices");
    if (!choices.is_array()) return;
    for (const json& choice : choices) {
      // n > 1 is not requested by Ava; only the first choice is assembled.
      if (num(choice, "index") != 0) continue;
      on_delta(member(choice, "delta"));
      if (auto reason = str(choice, "finish_reason"); !reason.empty()) finish_reason_ = reason;
    }
  }

  Response finish() override {
    // Servers that drop [DONE] (or whose recorder did) still sent a finish_reason.
    if (!finish_reason_.empty()) terminal_seen_ = true;
    Message message;
    if (!reasoning_.empty()) message.content.emplace_back(ThinkingBlock{.text = reasoning_});
    bool refused = content_.empty() && !refusal_.empty();
    if (!content_.empty()) message.content.emplace_back(TextBlock{content_});
    if (refused) message.content.emplace_back(TextBlock{refusal_});
    Stop stop{.reason = stop_reason_from_chat(finish_reason_), .provider_reason = finish_reason_};
    if (refused) stop.reason = StopReason::refusal;
    // Some compatible servers never send a finish_reason after tool calls.
    if (finish_reason_.empty() && !calls_.empty()) stop.reason = StopReason::tool_use;
    // Arguments cut by the output limit are not complete calls.
    bool calls_complete = stop.reason != StopReason::max_tokens && !has_error();
    if (calls_complete && terminal_seen_) {
      for (auto& [index, call] : calls_) {
        if (call.arguments.empty()) call.arguments = "{}";
        if (call.id.empty()) call.id = "call_" + std::to_string(index);
        ToolCallBlock block{.id = call.id, .name = call.name, .arguments = call.arguments};
        emit(ToolCallComplete{block});
        message.content.emplace_back(std::move(block));
      }
      // "stop" with tool calls happens on some servers; the calls decide.
      if (!calls_.empty() && stop.reason == StopReason::end_turn)
        stop.reason = StopReason::tool_use;
    }
    std::vector<ToolCallBlock> cut_calls;
    if (stop.reason == StopReason::max_tokens) {
      for (auto& [index, call] : calls_) {
        cut_calls.push_back(
            ToolCallBlock{.id = call.id.empty() ? "call_" + std::to_string(index) : call.id,
                          .name = call.name,
                          .arguments = call.arguments});
      }
    }
    return conclude(std::move(message), usage_, std::move(stop), std::move(cut_calls));
  }

 private:
  void on_delta(const json& delta) {
    if (auto text = str(delta, "content"); !text.empty()) {
      content_ += text;
      emit(TextDelta{std::move(text)});
    }
    if (auto text = str(delta, "refusal"); !text.empty()) refusal_ += text;
    std::string reasoning = str(delta, "reasoning_content");
    if (reasoning.empty()) reasoning = str(delta, "reasoning");
    if (!reasoning.empty()) {
      reasoning_ += reasoning;
      emit(ThinkingDelta{std::move(reasoning)});
    }
    const json& tool_calls = member(delta, "tool_calls");
    if (!tool_calls.is_array()) return;
    for (const json& fragment : tool_calls) {
      PartialCall& call = calls_[num(fragment, "index")];
      if (auto id = str(fragment, "id"); !id.empty()) call.id = id;
      const json& function = member(fragment, "function");
      if (auto name = str(function, "name"); !name.empty()) call.name = name;
      if (!call.announced && !call.name.empty()) {
        call.announced = true;
        emit(ToolCallStart{.id = call.id, .name = call.name});
      }
      if (auto arguments = str(function, "arguments"); !arguments.empty()) {
        call.arguments += arguments;
        emit(ToolCallDelta{.id = call.id, .arguments_fragment = std::move(arguments)});
      }
    }
  }

  // OpenAI puts usage in a final choices:[] chunk, OpenRouter in a chunk
  // with choices, Groq under x_groq. Later reports replace earlier ones.
  void read_usage(const json& chunk) {
    const json* usage = &member(chunk, "usage");
    if (!usage->is_object()) usage = &member(member(chunk, "x_groq"), "usage");
    if (!usage->is_object()) return;
    std::int64_t cached = num(member(*usage, "prompt_tokens_details"), "cached_tokens");
    usage_ = Usage{
        .input_tokens = num(*usage, "prompt_tokens") - cached,
        .output_tokens = num(*usage, "completion_tokens"),
        .cache_read_tokens = cached,
        .cache_write_tokens = 0,
        .reasoning_tokens = num(member(*usage, "completion_tokens_details"), "reasoning_tokens"),
    };
  }

  std::string content_;
  std::string refusal_;
  std::string reasoning_;
  std::map<std::int64_t, PartialCall> calls_;
  std::string finish_reason_;
  Usage usage_;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_chat_decoder(EventSink sink) {
  return std::make_unique<ChatDecoder>(std::move(sink));
}

}  // namespace ava::llm::detail
