#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ava/llm/items.hpp"
#include "ava/llm/settings.hpp"

namespace ava::llm {

// What Ava knows about a model: the context window compaction works within,
// the output cap, prices in USD per million tokens, and capabilities.
struct ModelInfo {
  std::string id;
  std::string provider_kind;  // "anthropic", "openai", ... ("" when unknown)
  std::int64_t context_window = 0;
  std::int64_t max_output = 0;
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  double cache_read_per_mtok = 0;
  double cache_write_per_mtok = 0;
  bool tools = false;
  bool images = false;
  bool thinking = false;
  bool known = false;  // false: conservative defaults, no prices
};

// The models Ava ships figures for.
std::span<const ModelInfo> model_catalog();

// Looks a model up by id. Dated snapshots ("claude-haiku-4-5-20251001",
// "gpt-5-2025-08-07") and router prefixes ("openai/gpt-5") find their base
// entry. An unknown model gets a 128k context window, an 8k output cap, no
// prices, tools assumed, and known = false. settings.json "models" overrides
// the context window and output cap of either.
ModelInfo model_info(std::string_view model, const Settings* overrides = nullptr);

// What a response cost: uncached input, output (reasoning included, as the
// providers bill it), cache reads and cache writes, at the model's prices.
double cost_usd(const ModelInfo& model, const Usage& usage);

// The model a provider kind uses when nothing names one; empty for ollama
// and lmstudio, which serve whatever the user pulled or loaded.
std::string_view default_model(ProviderKind kind);

}  // namespace ava::llm
