#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ava/protocol/shape.hpp"

// GET /api/analytics (docs/analytics.md).
namespace ava::protocol {

struct UsageBucket {
  std::string key;  // a day (UTC), a project folder, a model or a provider
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t steps = 0;
  double cost_usd = 0;  // at list prices; 0 for models without a known price
};
template <>
struct Shape<UsageBucket> {
  static constexpr std::string_view name = "UsageBucket";
  static constexpr std::string_view doc = "Usage of one day, project, model or provider.";
  static constexpr auto fields =
      std::tuple{field("key", &UsageBucket::key),
                 field("inputTokens", &UsageBucket::input_tokens),
                 field("outputTokens", &UsageBucket::output_tokens),
                 field("cacheReadTokens", &UsageBucket::cache_read_tokens),
                 field("cacheWriteTokens", &UsageBucket::cache_write_tokens),
                 field("steps", &UsageBucket::steps),
                 field("costUsd", &UsageBucket::cost_usd)};
};

struct ToolStats {
  std::string tool;
  std::int64_t calls = 0;
  std::int64_t errors = 0;       // error results (not interrupted or skipped)
  std::int64_t interrupted = 0;  // interrupted and skipped
  double mean_ms = 0;            // from the call's response to its result
};
template <>
struct Shape<ToolStats> {
  static constexpr std::string_view name = "ToolStats";
  static constexpr std::string_view doc = "One tool's calls, errors and mean duration.";
  static constexpr auto fields =
      std::tuple{field("tool", &ToolStats::tool), field("calls", &ToolStats::calls),
                 field("errors", &ToolStats::errors), field("interrupted", &ToolStats::interrupted),
                 field("meanMs", &ToolStats::mean_ms)};
};

struct AnalyticsSummary {
  std::int64_t sessions = 0;
  std::int64_t turns = 0;
  std::int64_t steps = 0;
  std::int64_t tool_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  double cost_usd = 0;
  // cache reads over all input the model read (input + cache reads); 0 when none.
  double cache_hit_ratio = 0;
  std::optional<std::int64_t> median_first_token_ms;  // of the steps that recorded it
  std::vector<UsageBucket> by_day;
  std::vector<UsageBucket> by_project;
  std::vector<UsageBucket> by_model;
  std::vector<UsageBucket> by_provider;
  std::vector<ToolStats> tools;
};
template <>
struct Shape<AnalyticsSummary> {
  static constexpr std::string_view name = "AnalyticsSummary";
  static constexpr std::string_view doc =
      "GET /api/analytics?project=&model=&provider=&from=&to=: the index brought up to date";
  static constexpr auto fields =
      std::tuple{field("sessions", &AnalyticsSummary::sessions),
                 field("turns", &AnalyticsSummary::turns),
                 field("steps", &AnalyticsSummary::steps),
                 field("toolCalls", &AnalyticsSummary::tool_calls),
                 field("inputTokens", &AnalyticsSummary::input_tokens),
                 field("outputTokens", &AnalyticsSummary::output_tokens),
                 field("cacheReadTokens", &AnalyticsSummary::cache_read_tokens),
                 field("cacheWriteTokens", &AnalyticsSummary::cache_write_tokens),
                 field("costUsd", &AnalyticsSummary::cost_usd),
                 field("cacheHitRatio", &AnalyticsSummary::cache_hit_ratio),
                 field("medianFirstTokenMs", &AnalyticsSummary::median_first_token_ms),
                 field("byDay", &AnalyticsSummary::by_day),
                 field("byProject", &AnalyticsSummary::by_project),
                 field("byModel", &AnalyticsSummary::by_model),
                 field("byProvider", &AnalyticsSummary::by_provider),
                 field("tools", &AnalyticsSummary::tools)};
};

}  // namespace ava::protocol
