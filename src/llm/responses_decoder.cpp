// OpenAI Responses streaming (the Codex wire API). Output items are keyed by
// output_index; the item in response.output_item.done is authoritative and
// deltas only feed live display. Function calls are buffered and released
// complete, in output order, only when response.completed arrives: a failed,
// incomplete or malformed response executes none of its calls.

#include <map>
#include <string>

#include "llm/decoder_base.hpp"
#include "llm/decoders.hpp"

namespace ava::llm::detail {

namespace {

enum class ItemKind { message, reasoning, function_call, other };

struct Item {
  ItemKind kind = ItemKind::other;
  std::string id;
  std::string call_id;
  std::string name;
  std::string text;  // message text, reasoning summary, or call arguments
  std::string encrypted_content;
  std::int64_t last_summary_index = -1;
  bool done = false;
  // A message's text by content part: the deltas, and the final text of a
  // part once output_text.done (or content_part.done) gave it. The final
  // text replaces the deltas of its part, so a message holds one copy.
  std::map<std::int64_t, std::string> delta_parts;
  std::map<std::int64_t, std::string> final_parts;
  std::string message_text() const {
    std::string out;
    for (const auto& [part, deltas] : delta_parts) {
      auto final_text = final_parts.find(part);
      out += final_text != final_parts.end() ? final_text->second : deltas;
    }
    for (const auto& [part, final_text] : final_parts) {
      if (!delta_parts.contains(part)) out += final_text;
    }
    return out;
  }
};

ItemKind item_kind(std::string_view type) {
  if (type == "message") return ItemKind::message;
  if (type == "reasoning") return ItemKind::reasoning;
  if (type == "function_call") return ItemKind::function_call;
  // custom_tool_call, local_shell_call and hosted tools: Ava offers none of
  // them, so there is nothing here it could execute.
  return ItemKind::other;
}

std::string joined_parts(const json& parts, std::string_view text_type,
                         std::string_view separator) {
  std::string out;
  if (!parts.is_array()) return out;
  for (const json& part : parts) {
    std::string type = str(part, "type");
    if (type != text_type && type != "refusal") continue;
    if (!out.empty()) out += separator;
    out += type == "refusal" ? str(part, "refusal") : str(part, "text");
  }
  return out;
}

Usage usage_from(const json& usage) {
  std::int64_t cached = num(member(usage, "input_tokens_details"), "cached_tokens");
  return Usage{
      .input_tokens = num(usage, "input_tokens") - cached,
      .output_tokens = num(usage, "output_tokens"),
      .cache_read_tokens = cached,
      .cache_write_tokens = 0,
      .reasoning_tokens = num(member(usage, "output_tokens_details"), "reasoning_tokens"),
  };
}

bool is_valid_json(const std::string& text) { return json::accept(text); }

class ResponsesDecoder final : public DecoderBase {
 public:
  explicit ResponsesDecoder(EventSink sink) : DecoderBase(std::move(sink), "response.completed") {}

  void on_event(const transport::SseEvent& event) override {
    if (event.data == "[DONE]") return;  // OpenRouter appends one after the terminal event
    auto payload = parse_payload(event.data);
    if (!payload || !payload->is_object()) return;
    const json& data = *payload;
    std::string type = str(data, "type");
    if (type == "response.output_item.added") {
      on_item(data, /*done=*/false);
    } else if (type == "response.output_item.done") {
      on_item(data, /*done=*/true);
    } else if (type == "response.output_text.delta" || type == "response.refusal.delta") {
      if (Item* item = find_item(data); item != nullptr && !item->done) {
        std::string delta = str(data, "delta");
        item->delta_parts[num(data, "content_index")] += delta;
        item->text = item->message_text();
        if (!delta.empty()) emit(TextDelta{std::move(delta)});
      }
    } else if (type == "response.output_text.done" || type == "response.content_part.done") {
      // The part's final text; it may differ from the deltas before it.
      const json& part = member(data, "part");
      const bool text_part = type == "response.output_text.done" ||
                             str(part, "type") == "output_text" || str(part, "type") == "refusal";
      if (Item* item = find_item(data); item != nullptr && !item->done && text_part) {
        std::string text = type == "response.output_text.done" ? str(data, "text")
                           : str(part, "type") == "refusal"    ? str(part, "refusal")
                                                               : str(part, "text");
        item->final_parts[num(data, "content_index")] = std::move(text);
        item->text = item->message_text();
      }
    } else if (type == "response.reasoning_summary_text.delta" ||
               type == "response.reasoning_text.delta") {
      on_reasoning_delta(data);
    } else if (type == "response.function_call_arguments.delta") {
      if (Item* item = find_item(data); item != nullptr && !item->done) {
        std::string delta = str(data, "delta");
        item->text += delta;
        if (!delta.empty()) {
          emit(ToolCallDelta{.id = item->call_id, .arguments_fragment = std::move(delta)});
        }
      }
    } else if (type == "response.function_call_arguments.done") {
      if (Item* item = find_item(data); item != nullptr && !item->done) {
        item->text = str(data, "arguments");
      }
    } else if (type == "response.completed" || type == "response.incomplete" ||
               type == "response.failed") {
      on_terminal(type, member(data, "response"));
    } else if (type == "error") {
      // The SDK type is flat; real captures nest it under "error".
      const json& nested = member(data, "error");
      const json& error = nested.is_object() ? nested : data;
      std::string code = str(error, "code");
      if (code.empty()) code = str(error, "type");
      record_error(classify_error(code, str(error, "message")));
    }
  }

  Response finish() override {
    Message message;
    std::vector<ToolCallBlock> calls;
    for (auto& [index, item] : items_) {
      switch (item.kind) {
        case ItemKind::message:
          if (!item.text.empty()) message.content.emplace_back(TextBlock{item.text});
          break;
        case ItemKind::reasoning:
          // Reasoning with neither summary nor encrypted content has nothing to replay.
          if (item.text.empty() && item.encrypted_content.empty()) break;
          message.content.emplace_back(ThinkingBlock{.text = item.text,
                                                     .encrypted_content = item.encrypted_content,
                                                     .provider_id = item.id});
          break;
        case ItemKind::function_call:
          calls.push_back(
              ToolCallBlock{.id = item.call_id, .name = item.name, .arguments = item.text});
          break;
        case ItemKind::other: break;
      }
    }
    Stop stop{.reason = StopReason::end_turn, .provider_reason = status_};
    if (status_ == "incomplete") {
      stop.reason =
          incomplete_reason_ == "content_filter" ? StopReason::refusal : StopReason::max_tokens;
      stop.provider_reason = incomplete_reason_.empty() ? status_ : incomplete_reason_;
    }
    if (status_ == "completed" && !has_error()) {
      for (const auto& call : calls) {
        if (!is_valid_json(call.arguments)) {
          record_error(StreamError{
              .kind = ErrorKind::protocol,
              .message = "function call '" + call.name + "' has arguments that are not valid JSON",
              .retryable = true});
          break;
        }
      }
      if (!has_error() && !calls.empty()) {
        stop.reason = StopReason::tool_use;
        for (auto& call : calls) {
          emit(ToolCallComplete{call});
          message.content.emplace_back(std::move(call));
        }
      }
      calls.clear();
    }
    // An incomplete response runs none of its calls: each is reported cut.
    return conclude(std::move(message), usage_, std::move(stop), std::move(calls));
  }

 private:
  // Deltas name their item by output_index (robust when proxies rotate ids)
  // and by item_id; older captures may carry only one of them.
  Item* find_item(const json& data) {
    if (has_num(data, "output_index")) {
      auto found = items_.find(num(data, "output_index"));
      if (found != items_.end()) return &found->second;
    }
    auto by_id = index_by_id_.find(str(data, "item_id"));
    if (by_id != index_by_id_.end()) return &items_[by_id->second];
    return nullptr;
  }

  void on_item(const json& data, bool done) {
    const json& body = member(data, "item");
    std::string id = str(body, "id");
    std::int64_t index = 0;
    if (has_num(data, "output_index")) {
      index = num(data, "output_index");
    } else if (auto known = index_by_id_.find(id); !id.empty() && known != index_by_id_.end()) {
      index = known->second;
    } else {
      index = items_.empty() ? 0 : items_.rbegin()->first + 1;
    }
    apply_item(index, body, done);
  }

  void apply_item(std::int64_t index, const json& body, bool done) {
    Item& item = items_[index];
    if (item.done) return;
    bool is_new = item.kind == ItemKind::other && item.id.empty() && item.name.empty();
    item.kind = item_kind(str(body, "type"));
    item.id = str(body, "id");
    if (!item.id.empty()) index_by_id_[item.id] = index;
    switch (item.kind) {
      case ItemKind::message:
        if (done) item.text = joined_parts(member(body, "content"), "output_text", "");
        break;
      case ItemKind::reasoning:
        if (done) {
          if (auto summary = joined_parts(member(body, "summary"), "summary_text", "\n\n");
              !summary.empty()) {
            item.text = summary;
          }
          item.encrypted_content = str(body, "encrypted_content");
        }
        break;
      case ItemKind::function_call:
        item.call_id = str(body, "call_id");
        item.name = str(body, "name");
        if (is_new) emit(ToolCallStart{.id = item.call_id, .name = item.name});
        if (done || item.text.empty()) item.text = str(body, "arguments");
        break;
      case ItemKind::other: break;
    }
    item.done = done;
  }

  void on_reasoning_delta(const json& data) {
    Item* item = find_item(data);
    if (item == nullptr || item->done) return;
    std::int64_t part = num(data, "summary_index");
    if (item->last_summary_index >= 0 && part != item->last_summary_index) item->text += "\n\n";
    item->last_summary_index = part;
    std::string delta = str(data, "delta");
    item->text += delta;
    if (!delta.empty()) emit(ThinkingDelta{std::move(delta)});
  }

  void on_terminal(const std::string& type, const json& response) {
    terminal_seen_ = true;
    status_ = str(response, "status");
    if (status_.empty()) status_ = type.substr(std::string_view("response.").size());
    // Usage on any terminal event is billed, failed or not.
    if (const json& usage = member(response, "usage"); usage.is_object())
      usage_ = usage_from(usage);
    // Items only listed in response.output (no output_item.done seen).
    if (const json& output = member(response, "output"); output.is_array()) {
      for (std::size_t at = 0; at < output.size(); ++at) {
        auto index = static_cast<std::int64_t>(at);
        if (!items_.contains(index)) apply_item(index, output[at], /*done=*/true);
      }
    }
    if (type == "response.incomplete") {
      incomplete_reason_ = str(member(response, "incomplete_details"), "reason");
    } else if (type == "response.failed") {
      const json& error = member(response, "error");
      std::string message = str(error, "message");
      if (message.empty()) message = "response failed";
      record_error(classify_error(str(error, "code"), std::move(message)));
    }
  }

  std::map<std::int64_t, Item> items_;  // by output_index = output order
  std::map<std::string, std::int64_t> index_by_id_;
  std::string status_;
  std::string incomplete_reason_;
  Usage usage_;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_responses_decoder(EventSink sink) {
  return std::make_unique<ResponsesDecoder>(std::move(sink));
}

}  // namespace ava::llm::detail
