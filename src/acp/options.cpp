#include "ava/acp/options.hpp"

#include <algorithm>
#include <tuple>

namespace ava::acp {

namespace {

using nlohmann::json;

struct Mode {
  const char* id;
  const char* name;
  const char* description;
};

// Ava's permission modes (docs/permissions.md).
constexpr Mode modes[] = {
    {"ask", "Ask", "Reads run; edits, commands, network and MCP calls ask first"},
    {"accept-edits", "Accept edits", "As Ask, and edits inside the project run"},
    {"plan", "Plan", "Read-only: the agent plans, nothing is changed"},
    {"auto", "Auto", "Everything runs, commands inside the sandbox when it is on"}};

std::string or_ask(std::string mode) { return mode.empty() ? "ask" : mode; }

}  // namespace

json session_modes(std::string current_mode) {
  json available = json::array();
  for (const auto& mode : modes) {
    available.push_back({{"id", mode.id}, {"name", mode.name}, {"description", mode.description}});
  }
  return json{{"currentModeId", or_ask(std::move(current_mode))}, {"availableModes", available}};
}

json config_options(const std::string& current_mode, const std::string& current_model,
                    const std::vector<ModelOption>& models) {
  json mode_values = json::array();
  for (const auto& mode : modes) {
    mode_values.push_back(
        {{"value", mode.id}, {"name", mode.name}, {"description", mode.description}});
  }
  json model_values = json::array();
  const bool listed = std::any_of(models.begin(), models.end(),
                                  [&](const ModelOption& m) { return m.value == current_model; });
  if (!listed && !current_model.empty()) {
    model_values.push_back({{"value", current_model}, {"name", current_model}});
  }
  for (const auto& model : models) {
    json value{{"value", model.value}, {"name", model.name}};
    if (!model.description.empty()) value["description"] = model.description;
    model_values.push_back(std::move(value));
  }
  json out = json::array();
  out.push_back({{"id", "mode"},
                 {"name", "Mode"},
                 {"description", "Which tool calls run without asking"},
                 {"category", "mode"},
                 {"type", "select"},
                 {"currentValue", or_ask(current_mode)},
                 {"options", mode_values}});
  if (!model_values.empty()) {
    out.push_back(
        {{"id", "model"},
         {"name", "Model"},
         {"description", "The model that answers, from the next step on"},
         {"category", "model"},
         {"type", "select"},
         {"currentValue", current_model.empty() ? model_values[0]["value"] : json(current_model)},
         {"options", model_values}});
  }
  return out;
}

}  // namespace ava::acp
