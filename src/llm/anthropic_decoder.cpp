// Anthropic Messages streaming: message_start, content_block_start/delta/stop
// keyed by index, message_delta (cumulative usage, stop reason), message_stop.

#include <map>
#include <string>

#include "llm/decoder_base.hpp"
#include "llm/decoders.hpp"

namespace ava::llm::detail {

namespace {

enum class BlockKind { text, thinking, redacted_thinking, tool_use, other };

struct Block {
  BlockKind kind = BlockKind::other;
  std::string text;  // text, thinking text, or the tool input JSON so far
  std::string signature;
  std::string redacted_data;
  std::string id;
  std::string name;
  bool closed = false;
};

BlockKind block_kind(std::string_view type) {
  if (type == "text") return BlockKind::text;
  if (type == "thinking") return BlockKind::thinking;
  if (type == "redacted_thinking") return BlockKind::redacted_thinking;
  if (type == "tool_use") return BlockKind::tool_use;
  // server_tool_use, mcp_tool_use and *_tool_result run on Anthropic's side:
  // nothing for Ava to execute or show beyond the text around them.
  return BlockKind::other;
}

// Usage fields present in this object override what we have: message_delta
// repeats them cumulatively, and gateways may send 0 in message_start.
void merge_usage(const json& usage, Usage& into) {
  if (has_num(usage, "input_tokens")) into.input_tokens = num(usage, "input_tokens");
  if (has_num(usage, "output_tokens")) into.output_tokens = num(usage, "output_tokens");
  if (has_num(usage, "cache_read_input_tokens")) {
    into.cache_read_tokens = num(usage, "cache_read_input_tokens");
  }
  if (has_num(usage, "cache_creation_input_tokens")) {
    into.cache_write_tokens = num(usage, "cache_creation_input_tokens");
  }
  const json& details = member(usage, "output_tokens_details");
  if (has_num(details, "thinking_tokens")) {
    into.reasoning_tokens = num(details, "thinking_tokens");
  }
}

class AnthropicDecoder final : public DecoderBase {
 public:
  explicit AnthropicDecoder(EventSink sink) : DecoderBase(std::move(sink), "message_stop") {}

  void on_event(const transport::SseEvent& event) override {
    auto payload = parse_payload(event.data);
    if (!payload || !payload->is_object()) return;
    const json& data = *payload;
    std::string type = str(data, "type");
    if (type == "message_start") {
      on_message_start(member(data, "message"));
    } else if (type == "content_block_start") {
      on_block_start(num(data, "index"), member(data, "content_block"));
    } else if (type == "content_block_delta") {
      on_block_delta(num(data, "index"), member(data, "delta"));
    } else if (type == "content_block_stop") {
      on_block_stop(num(data, "index"));
    } else if (type == "message_delta") {
      const json& delta = member(data, "delta");
      if (auto reason = str(delta, "stop_reason"); !reason.empty()) stop_reason_ = reason;
      merge_usage(member(data, "usage"), usage_);
    } else if (type == "message_stop") {
      terminal_seen_ = true;
    } else if (type == "error") {
      const json& error = member(data, "error");
      record_error(classify_error(str(error, "type"), str(error, "message")));
      terminal_seen_ = true;
    }
    // ping and unknown event types are ignored, as the API reference asks.
  }

  Response finish() override {
    Message message;
    std::vector<ToolCallBlock> cut_calls;
    for (auto& [index, block] : blocks_) {
      switch (block.kind) {
        case BlockKind::text:
          if (!block.text.empty()) message.content.emplace_back(TextBlock{std::move(block.text)});
          break;
        case BlockKind::thinking:
          message.content.emplace_back(ThinkingBlock{.text = std::move(block.text),
                                                     .signature = std::move(block.signature)});
          break;
        case BlockKind::redacted_thinking:
          message.content.emplace_back(
              ThinkingBlock{.redacted_data = std::move(block.redacted_data)});
          break;
        case BlockKind::tool_use:
          // A block still open when the message ended holds incomplete JSON.
          if (block.closed) {
            message.content.emplace_back(ToolCallBlock{.id = std::move(block.id),
                                                       .name = std::move(block.name),
                                                       .arguments = std::move(block.text)});
          } else {
            cut_calls.push_back(ToolCallBlock{.id = std::move(block.id),
                                              .name = std::move(block.name),
                                              .arguments = std::move(block.text)});
          }
          break;
        case BlockKind::other: break;
      }
    }
    Stop stop{.reason = stop_reason_from_anthropic(stop_reason_), .provider_reason = stop_reason_};
    if (!cut_calls.empty() && stop.reason == StopReason::tool_use) {
      stop.reason = StopReason::max_tokens;
    }
    return conclude(std::move(message), usage_, std::move(stop), std::move(cut_calls));
  }

 private:
  void on_message_start(const json& message) {
    std::string id = str(message, "id");
    if (started_ && id == message_id_) return;  // a repeated message_start changes nothing
    if (started_) {
      // A different message in the same stream: do not glue the two together.
      blocks_.clear();
      stop_reason_.clear();
      usage_ = Usage{};
    }
    started_ = true;
    message_id_ = std::move(id);
    merge_usage(member(message, "usage"), usage_);
  }

  void on_block_start(std::int64_t index, const json& content) {
    Block block{.kind = block_kind(str(content, "type"))};
    switch (block.kind) {
      case BlockKind::text:
        block.text = str(content, "text");
        if (!block.text.empty()) emit(TextDelta{block.text});
        break;
      case BlockKind::thinking:
        block.text = str(content, "thinking");
        block.signature = str(content, "signature");
        if (!block.text.empty()) emit(ThinkingDelta{block.text});
        break;
      case BlockKind::redacted_thinking: block.redacted_data = str(content, "data"); break;
      case BlockKind::tool_use:
        block.id = str(content, "id");
        block.name = str(content, "name");
        emit(ToolCallStart{.id = block.id, .name = block.name});
        break;
      case BlockKind::other: break;
    }
    blocks_[index] = std::move(block);
  }

  void on_block_delta(std::int64_t index, const json& delta) {
    auto found = blocks_.find(index);
    if (found == blocks_.end() || found->second.closed) return;
    Block& block = found->second;
    std::string type = str(delta, "type");
    if (type == "text_delta" && block.kind == BlockKind::text) {
      std::string text = str(delta, "text");
      block.text += text;
      if (!text.empty()) emit(TextDelta{std::move(text)});
    } else if (type == "thinking_delta" && block.kind == BlockKind::thinking) {
      std::string text = str(delta, "thinking");
      block.text += text;
      if (!text.empty()) emit(ThinkingDelta{std::move(text)});
    } else if (type == "signature_delta" && block.kind == BlockKind::thinking) {
      block.signature = str(delta, "signature");
    } else if (type == "input_json_delta" && block.kind == BlockKind::tool_use) {
      std::string fragment = str(delta, "partial_json");
      block.text += fragment;
      if (!fragment.empty()) {
        emit(ToolCallDelta{.id = block.id, .arguments_fragment = std::move(fragment)});
      }
    }
    // citations_delta, compaction_delta and unknown deltas are not kept.
  }

  void on_block_stop(std::int64_t index) {
    auto found = blocks_.find(index);
    if (found == blocks_.end() || found->second.closed) return;
    Block& block = found->second;
    block.closed = true;
    if (block.kind == BlockKind::tool_use) {
      if (block.text.empty()) block.text = "{}";  // a tool without arguments
      emit(ToolCallComplete{
          ToolCallBlock{.id = block.id, .name = block.name, .arguments = block.text}});
    }
  }

  bool started_ = false;
  std::string message_id_;
  std::map<std::int64_t, Block> blocks_;  // content index = content order
  std::string stop_reason_;
  Usage usage_;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_anthropic_decoder(EventSink sink) {
  return std::make_unique<AnthropicDecoder>(std::move(sink));
}

}  // namespace ava::llm::detail
