#pragma once

#include "ava/llm/decoder.hpp"
#include "support/fake_provider.hpp"

namespace ava::test {

// A stateless scripted model for black-box tests of many conversations at
// once (the order of requests between conversations is not fixed, so a
// queue of replies cannot serve them). It answers the last message:
//   "bash: CMD"      -> a bash tool call running CMD
//   "tool: NAME JSON" -> a call of tool NAME with the JSON arguments
//   "slow: MS: TEXT" -> "TEXT" streamed a word per event, MS apart
//   a tool result    -> "done: " + the first line of the result
//   anything else    -> "echo: " + the text
FakeReply echo_reply(llm::WireApi api, const RecordedRequest& request);

}  // namespace ava::test
