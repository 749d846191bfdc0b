// Adapter parse throughput: captured provider bodies through the SSE parser
// and the decoder, in 4 KiB chunks as they would come off the socket; and,
// with the fake provider's renderer, one large body per wire format (a long
// answer in small deltas, with tool calls) so the three compare like for like.

#include <benchmark/benchmark.h>

#include <string>

#include "ava/llm/decoder.hpp"
#include "support/fixture.hpp"
#ifdef AVA_HAS_FAKE_PROVIDER
#include "support/wire_sse.hpp"
#endif

namespace {

std::string fixture(const std::string& name) {
  return ava::test::read_fixture("providers/" + name);
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

#ifdef AVA_HAS_FAKE_PROVIDER
// 3,000 text pieces (each rendered as two deltas) and 20 tool calls with
// JSON arguments: 1.0 to 2.6 MB, depending on how verbose the format is.
std::string large_body(ava::llm::WireApi api) {
  ava::llm::MockResponse response;
  for (int i = 0; i < 3000; ++i) {
    response.steps.emplace_back(ava::llm::TextBlock{"the quick brown fox jumps over it, "});
    if (i % 150 == 0) {
      response.steps.emplace_back(ava::llm::ToolCallBlock{
          .id = "call_" + std::to_string(i),
          .name = "edit",
          .arguments = R"({"path":"src/main.cpp","edits":[{"oldText":"a","newText":"b"}]})"});
    }
  }
  response.usage = {.input_tokens = 1200, .output_tokens = 9000};
  return ava::test::render_sse(api, response);
}

void decode_large(benchmark::State& state, ava::llm::WireApi api) {
  const std::string body = large_body(api);
  for (auto _ : state) {
    auto response = ava::llm::decode_sse_body(api, body, {}, 4096);
    if (response.error) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(response);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
#endif

}  // namespace

#ifdef AVA_HAS_FAKE_PROVIDER
BENCHMARK_CAPTURE(decode_large, anthropic, ava::llm::WireApi::anthropic_messages);
BENCHMARK_CAPTURE(decode_large, openai_chat, ava::llm::WireApi::openai_chat);
BENCHMARK_CAPTURE(decode_large, openai_responses, ava::llm::WireApi::openai_responses);
#endif
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
