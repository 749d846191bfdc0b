#pragma once

#include <vector>

#include "ava/llm/model_list.hpp"

namespace ava::cli {

// Asks every source for its models at once (`ava models`, `ava auth login`'s
// check of a new key, `ava doctor`): a configured provider with the usual
// timeouts and the environment's proxy, a probed local port briefly and
// without a proxy. One result per source, in order; never fails.
std::vector<llm::ProviderModels> query_all(const std::vector<llm::ModelSource>& sources,
                                           const llm::Settings& settings);

}  // namespace ava::cli
