#include "ava/llm/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ava::llm {

namespace {

// Published figures, taken on 2026-12-02 from Anthropic's models and pricing
// pages (docs.anthropic.com, platform.claude.com) and OpenAI's model pages
// (developers.openai.com), as stored copies and consistent mirrors of them.
// Context and output are tokens; prices USD per million tokens. Anthropic
// cache writes are the 5-minute rate (1.25x input), cache reads 0.1x input;
// OpenAI does not bill cache writes. Long-context surcharges (OpenAI above
// 272k input) are not modelled. Newer names whose published figures
// disagreed between copies of the same page were left out: they get the
// unknown-model defaults until someone checks them.
struct Row {
  const char* id;
  const char* kind;
  std::int64_t context;
  std::int64_t output;
  double input, output_price, cache_read, cache_write;
  bool thinking;
};

constexpr Row rows[] = {
    // Anthropic
    {"claude-opus-4-7", "anthropic", 1'000'000, 128'000, 5, 25, 0.50, 6.25, true},
    {"claude-opus-4-6", "anthropic", 1'000'000, 128'000, 5, 25, 0.50, 6.25, true},
    {"claude-sonnet-4-6", "anthropic", 1'000'000, 64'000, 3, 15, 0.30, 3.75, true},
    {"claude-opus-4-5", "anthropic", 200'000, 64'000, 5, 25, 0.50, 6.25, true},
    {"claude-sonnet-4-5", "anthropic", 200'000, 64'000, 3, 15, 0.30, 3.75, true},
    {"claude-haiku-4-5", "anthropic", 200'000, 64'000, 1, 5, 0.10, 1.25, true},
    {"claude-opus-4-1", "anthropic", 200'000, 32'000, 15, 75, 1.50, 18.75, true},
    {"claude-sonnet-4", "anthropic", 200'000, 64'000, 3, 15, 0.30, 3.75, true},
    // OpenAI
    {"gpt-5.4", "openai", 1'050'000, 128'000, 2.50, 15, 0.25, 0, true},
    {"gpt-5.2", "openai", 400'000, 128'000, 1.75, 14, 0.175, 0, true},
    {"gpt-5.1", "openai", 400'000, 128'000, 1.25, 10, 0.125, 0, true},
    {"gpt-5", "openai", 400'000, 128'000, 1.25, 10, 0.125, 0, true},
    {"gpt-5-mini", "openai", 400'000, 128'000, 0.25, 2, 0.025, 0, true},
    {"gpt-5-nano", "openai", 400'000, 128'000, 0.05, 0.40, 0.005, 0, true},
    {"gpt-4.1", "openai", 1'047'576, 32'768, 2, 8, 0.50, 0, false},
    {"gpt-4.1-mini", "openai", 1'047'576, 32'768, 0.40, 1.60, 0.10, 0, false},
    {"gpt-4o", "openai", 128'000, 16'384, 2.50, 10, 1.25, 0, false},
    {"gpt-4o-mini", "openai", 128'000, 16'384, 0.15, 0.60, 0.075, 0, false},
    {"o3", "openai", 200'000, 100'000, 2, 8, 0.50, 0, true},
    {"o4-mini", "openai", 200'000, 100'000, 1.10, 4.40, 0.275, 0, true},
};

ModelInfo to_info(const Row& row) {
  return ModelInfo{.id = row.id,
                   .provider_kind = row.kind,
                   .context_window = row.context,
                   .max_output = row.output,
                   .input_per_mtok = row.input,
                   .output_per_mtok = row.output_price,
                   .cache_read_per_mtok = row.cache_read,
                   .cache_write_per_mtok = row.cache_write,
                   .tools = true,
                   .images = true,
                   .thinking = row.thinking,
                   .known = true};
}

const std::vector<ModelInfo>& catalog() {
  static const std::vector<ModelInfo> models = [] {
    std::vector<ModelInfo> out;
    for (const Row& row : rows) out.push_back(to_info(row));
    return out;
  }();
  return models;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::ranges::all_of(text, [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "20251001" or "2025-08-07": the date suffix of a pinned snapshot.
bool is_date(std::string_view text) {
  if (text.size() == 8) return all_digits(text);
  return text.size() == 10 && text[4] == '-' && text[7] == '-' && all_digits(text.substr(0, 4)) &&
         all_digits(text.substr(5, 2)) && all_digits(text.substr(8, 2));
}

const ModelInfo* find(std::string_view id) {
  for (const auto& info : catalog()) {
    if (info.id == id) return &info;
  }
  for (const auto& info : catalog()) {
    if (id.size() > info.id.size() + 1 && id.starts_with(info.id) && id[info.id.size()] == '-' &&
        is_date(id.substr(info.id.size() + 1))) {
      return &info;
    }
  }
  return nullptr;
}

}  // namespace

std::span<const ModelInfo> model_catalog() { return catalog(); }

ModelInfo model_info(std::string_view model, const Settings* overrides) {
  // Routers name models "vendor/model"; the catalog knows the model part.
  std::string_view id = model;
  if (auto slash = id.rfind('/'); slash != std::string_view::npos) id = id.substr(slash + 1);
  const ModelInfo* found = find(id);
  ModelInfo info =
      found != nullptr
          ? *found
          : ModelInfo{
                .context_window = 128'000, .max_output = 8'192, .tools = true, .known = false};
  info.id = std::string(model);
  if (overrides != nullptr) {
    auto it = overrides->models.find(model);
    if (it == overrides->models.end()) it = overrides->models.find(id);
    if (it != overrides->models.end()) {
      info.context_window = it->second.context_window.value_or(info.context_window);
      info.max_output = it->second.max_output.value_or(info.max_output);
    }
  }
  return info;
}

double cost_usd(const ModelInfo& model, const Usage& usage) {
  auto part = [](std::int64_t tokens, double per_mtok) {
    return static_cast<double>(tokens) * per_mtok / 1'000'000.0;
  };
  return part(usage.input_tokens, model.input_per_mtok) +
         part(usage.output_tokens, model.output_per_mtok) +
         part(usage.cache_read_tokens, model.cache_read_per_mtok) +
         part(usage.cache_write_tokens, model.cache_write_per_mtok);
}

std::string_view default_model(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::anthropic: return "claude-sonnet-4-6";
    case ProviderKind::openai:
    case ProviderKind::openai_responses:
    case ProviderKind::codex: return "gpt-5.4";
    case ProviderKind::llamacpp: return "default";  // llama-server answers with its loaded model
    case ProviderKind::mock: return "mock";
    case ProviderKind::ollama:
    case ProviderKind::lmstudio: return {};
  }
  return {};
}

}  // namespace ava::llm
