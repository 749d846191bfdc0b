#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/llm/decoder.hpp"

namespace ava::llm::detail {

using nlohmann::json;

// Tolerant accessors: providers add, omit and null fields freely, and an
// unexpected type must never throw out of a decoder.
inline std::string str(const json& object, std::string_view key) {
  if (!object.is_object()) return {};
  auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return {};
  return found->get<std::string>();
}

// Counts and indexes: clamped to +-2^53, so sums and differences of a few
// of them cannot overflow whatever a provider sends.
inline std::int64_t num(const json& object, std::string_view key) {
  constexpr std::int64_t bound = std::int64_t{1} << 53;
  if (auto exact = base::json_field<std::int64_t>(object, key)) {
    return std::clamp(*exact, -bound, bound);
  }
  // 12.0 counts; a float out of range would be undefined to convert.
  const auto approximate = base::json_field<double>(object, key);
  if (!approximate || !std::isfinite(*approximate)) return 0;
  return static_cast<std::int64_t>(
      std::clamp(*approximate, -static_cast<double>(bound), static_cast<double>(bound)));
}

inline bool has_num(const json& object, std::string_view key) {
  if (!object.is_object()) return false;
  auto found = object.find(key);
  return found != object.end() && found->is_number();
}

inline const json& member(const json& object, std::string_view key) {
  static const json null_value;
  if (!object.is_object()) return null_value;
  auto found = object.find(key);
  return found == object.end() ? null_value : *found;
}

// An SSE data payload as JSON, or nullopt when it is not JSON or nests
// deeper than base::JsonLimits allows (skipped, as codex does: a cut stream
// then ends without its terminal event).
std::optional<json> parse_payload(std::string_view data);

// Error kind and retryability from a provider's error type or code.
StreamError classify_error(std::string_view type_or_code, std::string message);

// State and endings shared by the three decoders.
class DecoderBase : public StreamDecoder {
 public:
  bool finished() const override { return terminal_seen_; }

 protected:
  DecoderBase(EventSink sink, std::string_view terminal_name)
      : sink_(std::move(sink)), terminal_name_(terminal_name) {}

  void emit(const StreamEvent& event) const {
    if (sink_) sink_(event);
  }
  // The first error wins; it is emitted at once.
  void record_error(StreamError error);
  bool has_error() const { return error_.has_value(); }
  // Closes the response: a missing terminal event becomes an error; an error
  // removes the tool calls (cut ones too); then usage and stop are emitted.
  // `cut_calls` count only when the output limit ended the response.
  Response conclude(Message message, Usage usage, Stop stop,
                    std::vector<ToolCallBlock> cut_calls = {});

  bool terminal_seen_ = false;

 private:
  EventSink sink_;
  std::string_view terminal_name_;
  std::optional<StreamError> error_;
};

StopReason stop_reason_from_anthropic(std::string_view reason);

}  // namespace ava::llm::detail
