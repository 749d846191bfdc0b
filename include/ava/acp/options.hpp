#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/acp/conversation.hpp"

// A session's modes and configuration options as ACP shows them: Ava's
// permission modes as session modes (and the "mode" option), and the
// "model" option. Pure.
namespace ava::acp {

// The modes object of session/new and session/load.
nlohmann::json session_modes(std::string current_mode);

// The configOptions array: "mode" (category mode) and "model" (category
// model; the current one is offered even when it is not in `models`).
nlohmann::json config_options(const std::string& current_mode, const std::string& current_model,
                              const std::vector<ModelOption>& models);

}  // namespace ava::acp
