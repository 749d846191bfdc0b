#include <catch2/catch.hpp>

#include "ava/llm/catalog.hpp"

namespace llm = ava::llm;

TEST_CASE("catalog: known models carry their published figures", "[catalog]") {
  auto sonnet = llm::model_info("claude-sonnet-4-6");
  CHECK(sonnet.known);
  CHECK(sonnet.provider_kind == "anthropic");
  CHECK(sonnet.context_window == 1'000'000);
  CHECK(sonnet.max_output == 64'000);
  CHECK(sonnet.input_per_mtok == Approx(3.0));
  CHECK(sonnet.output_per_mtok == Approx(15.0));
  CHECK(sonnet.cache_read_per_mtok == Approx(0.30));
  CHECK(sonnet.cache_write_per_mtok == Approx(3.75));
  CHECK(sonnet.tools);
  CHECK(sonnet.images);
  CHECK(sonnet.thinking);

  auto gpt = llm::model_info("gpt-5");
  CHECK(gpt.known);
  CHECK(gpt.provider_kind == "openai");
  CHECK(gpt.context_window == 400'000);
  CHECK(gpt.cache_write_per_mtok == 0);
  CHECK_FALSE(llm::model_info("gpt-4o").thinking);
}

TEST_CASE("catalog: dated snapshots and router prefixes find their base model", "[catalog]") {
  auto haiku = llm::model_info("claude-haiku-4-5-20251001");
  CHECK(haiku.known);
  CHECK(haiku.id == "claude-haiku-4-5-20251001");
  CHECK(haiku.context_window == 200'000);
  CHECK(llm::model_info("gpt-5-2025-08-07").input_per_mtok == Approx(1.25));
  CHECK(llm::model_info("claude-sonnet-4-20250514").known);
  CHECK(llm::model_info("openai/gpt-5-mini").input_per_mtok == Approx(0.25));
  // A different model that merely shares a prefix is not the base model.
  CHECK(llm::model_info("gpt-5-mini").input_per_mtok == Approx(0.25));
  CHECK_FALSE(llm::model_info("claude-sonnet-4-9").known);
  CHECK_FALSE(llm::model_info("gpt-5-turbo").known);
}

TEST_CASE("catalog: unknown models get conservative defaults and are marked unknown", "[catalog]") {
  auto local = llm::model_info("qwen3:8b");
  CHECK_FALSE(local.known);
  CHECK(local.id == "qwen3:8b");
  CHECK(local.context_window == 128'000);
  CHECK(local.max_output == 8'192);
  CHECK(local.input_per_mtok == 0);
  CHECK(llm::cost_usd(local, llm::Usage{.input_tokens = 1'000'000}) == 0);
}

TEST_CASE("catalog: settings.json overrides context window and output cap", "[catalog]") {
  llm::Settings settings;
  settings.models["qwen3:8b"] = llm::ModelOverride{.context_window = 32'768};
  settings.models["claude-opus-4-6"] = llm::ModelOverride{.max_output = 32'000};
  auto local = llm::model_info("qwen3:8b", &settings);
  CHECK(local.context_window == 32'768);
  CHECK(local.max_output == 8'192);
  CHECK_FALSE(local.known);
  auto opus = llm::model_info("claude-opus-4-6", &settings);
  CHECK(opus.context_window == 1'000'000);
  CHECK(opus.max_output == 32'000);
  CHECK(opus.input_per_mtok == Approx(5.0));
}

TEST_CASE("catalog: cost adds input, output, cache reads and cache writes", "[catalog]") {
  auto sonnet = llm::model_info("claude-sonnet-4-6");
  llm::Usage usage{.input_tokens = 10'000,
                   .output_tokens = 2'000,
                   .cache_read_tokens = 100'000,
                   .cache_write_tokens = 20'000,
                   .reasoning_tokens = 500};  // part of output_tokens: not billed twice
  // 0.01*3 + 0.002*15 + 0.1*0.30 + 0.02*3.75
  CHECK(llm::cost_usd(sonnet, usage) == Approx(0.03 + 0.03 + 0.03 + 0.075));
  CHECK(llm::cost_usd(llm::model_info("gpt-5-mini"), llm::Usage{.output_tokens = 1'000'000}) ==
        Approx(2.0));
}

TEST_CASE("catalog: every provider kind has a sensible default model", "[catalog]") {
  CHECK(llm::model_info(llm::default_model(llm::ProviderKind::anthropic)).known);
  CHECK(llm::model_info(llm::default_model(llm::ProviderKind::openai)).known);
  CHECK(llm::model_info(llm::default_model(llm::ProviderKind::openai_responses)).known);
  CHECK(llm::default_model(llm::ProviderKind::mock) == "mock");
  CHECK(llm::default_model(llm::ProviderKind::ollama).empty());
  for (const auto& info : llm::model_catalog()) {
    CHECK(info.known);
    CHECK(info.context_window > info.max_output);
    CHECK(info.output_per_mtok > info.input_per_mtok);
  }
}
