// A recording's JSON (recording/json.cpp, reader.cpp): what `ava replay`
// reads from a folder anyone may have edited. The bytes are one JSON value,
// decoded as a request, a stream event, a response, tool content and a
// manifest.
//
// Checks: nothing throws and nothing is undefined; whatever decodes encodes
// to a value that decodes to the same encoding (a round trip is stable);
// first_difference of a value with itself is empty, and with a changed copy
// is not.
#include <string>

#include "ava/base/json.hpp"
#include "ava/recording/json.hpp"
#include "ava/recording/recording.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using nlohmann::json;
namespace recording = ava::recording;

template <class Decode, class Encode>
void round_trip(const json& value, Decode decode, Encode encode) {
  const auto decoded = decode(value);
  if (!decoded) return;
  const json encoded = encode(*decoded);
  const auto again = decode(encoded);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(encode(*again) == encoded);
  FUZZ_CHECK(recording::first_difference(encoded, encoded).empty());
  json changed = encoded;
  changed["fuzz-extra"] = 1;
  FUZZ_CHECK(!recording::first_difference(encoded, changed).empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  const auto value = ava::base::parse_json(text);
  if (!value) return 0;
  round_trip(*value, recording::decode_request, recording::encode_request);
  round_trip(*value, recording::decode_event, recording::encode_event);
  round_trip(*value, recording::decode_response, recording::encode_response);
  if (const auto content = recording::decode_tool_content(*value)) {
    const json encoded = recording::encode_tool_content(*content);
    const auto again = recording::decode_tool_content(encoded);
    FUZZ_CHECK(again && *again == *content);
  }
  if (const auto manifest = recording::manifest_from_json(*value)) {
    const auto again = recording::manifest_from_json(recording::to_json(*manifest));
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(recording::to_json(*again) == recording::to_json(*manifest));
  }
  (void)recording::first_difference(*value, json::object());
  return 0;
}
