// Adapter parse throughput: captured provider bodies through the SSE parser
// and the decoder, in 4 KiB chunks as they would come off the socket.

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ava/llm/decoder.hpp"

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(AVA_FIXTURES_DIR "/providers/") + name, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void decode(benchmark::State& state, ava::llm::WireApi api, const std::string& name) {
  const std::string body = fixture(name);
  std::size_t events = 0;
  for (auto _ : state) {
    auto response = ava::llm::decode_sse_body(
        api, body, [&](const ava::llm::StreamEvent&) { ++events; }, 4096);
    benchmark::DoNotOptimize(response);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  benchmark::DoNotOptimize(events);
}

}  // namespace

BENCHMARK_CAPTURE(decode, anthropic_web_search, ava::llm::WireApi::anthropic_messages,
                  "anthropic/simonw-llm-anthropic__test_web_search.yaml.0.sse");
BENCHMARK_CAPTURE(
    decode, anthropic_code_execution, ava::llm::WireApi::anthropic_messages,
    "anthropic/vercel-ai__anthropic-code-execution-20250825.1.chunks.txt.wrapped.sse");
BENCHMARK_CAPTURE(decode, openai_chat_text, ava::llm::WireApi::openai_chat,
                  "openai-chat/vercel-ai__openai-text.chunks.txt.wrapped.sse");
BENCHMARK_CAPTURE(
    decode, openai_responses_web_search, ava::llm::WireApi::openai_responses,
    "openai-responses/pydantic-ai__test_openai_responses_model_web_search_tool_stream.yaml.0.sse");
