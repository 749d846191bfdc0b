#pragma once

#include <memory>

#include "ava/llm/decoder.hpp"

namespace ava::llm::detail {

std::unique_ptr<StreamDecoder> make_anthropic_decoder(EventSink sink);
std::unique_ptr<StreamDecoder> make_chat_decoder(EventSink sink);
std::unique_ptr<StreamDecoder> make_responses_decoder(EventSink sink);

}  // namespace ava::llm::detail
