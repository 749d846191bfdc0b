#pragma once

#include <string>

#include "ava/llm/decoder.hpp"
#include "ava/llm/items.hpp"

namespace ava::llm {

// Neutral Request -> the JSON body of one streaming request. Each encoder
// replays what its provider needs back byte-exact (Anthropic thinking
// signatures and redacted thinking, Responses encrypted reasoning) and drops
// what it cannot accept (another provider's reasoning).

// POST /v1/messages. cache_control breakpoints on the system prompt, the
// last tool and the last message when request.prompt_caching is set.
std::string encode_anthropic_request(const Request& request);

// POST /v1/chat/completions, with stream_options.include_usage.
std::string encode_chat_request(const Request& request);

// POST /v1/responses with store:false. A function call without its output
// (or an output without its call) is left out, so an interrupted step never
// poisons the next request.
std::string encode_responses_request(const Request& request);

std::string encode_request(WireApi api, const Request& request);

}  // namespace ava::llm
