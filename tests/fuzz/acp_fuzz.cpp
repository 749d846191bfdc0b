// `ava acp`'s input: whatever an editor (or anything on the other end of
// stdin) writes, as JSON-RPC lines, through the bridge's decoding,
// dispatch and prompt handling, with an opener that refuses every session.
//
// Checks: nothing throws and nothing is undefined; every line written is
// one JSON-RPC 2.0 message (an answer with an id, or an error).
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ava/acp/prompt.hpp"
#include "ava/acp/server.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

class RefusingOpener final : public ava::acp::ConversationOpener {
 public:
  ava::Result<std::unique_ptr<ava::acp::Conversation>> open(
      const ava::acp::OpenRequest& /*request*/) override {
    return ava::fail(ava::ErrorCode::not_found, "refused");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  std::istringstream in{std::string(text)};
  std::ostringstream out;
  RefusingOpener opener;
  ava::acp::serve(in, out, opener, {.version = "fuzz"});
  std::istringstream written(out.str());
  for (std::string line; std::getline(written, line);) {
    const auto message = nlohmann::json::parse(line, nullptr, false);
    FUZZ_CHECK(message.is_object());
    FUZZ_CHECK(message["jsonrpc"] == "2.0");
    FUZZ_CHECK(message.contains("result") || message.contains("error"));
  }
  // The same bytes as a prompt's blocks.
  const auto blocks = nlohmann::json::parse(text, nullptr, false);
  if (!blocks.is_discarded()) (void)ava::acp::prompt_input(blocks);
  return 0;
}
