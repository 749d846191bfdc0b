#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>

#include "ava/base/error.hpp"
#include "ava/llm/decoder.hpp"
#include "ava/llm/provider.hpp"
#include "ava/llm/settings.hpp"

namespace ava::llm {

// What the user asked for, e.g. `--provider` and `--model`; empty fields
// come from the environment and settings.
struct ProviderChoice {
  std::string provider;
  std::string model;
};

struct SelectedProvider {
  std::unique_ptr<Provider> provider;
  std::string provider_name;
  std::string model;
  WireApi api = WireApi::anthropic_messages;  // mock reports anthropic_messages
};

// Builds the provider to talk to. The provider is the choice, else
// default_provider_name(); the model is the choice, else AVA_MODEL, else
// settings.json "model" when the provider is the settings' default one, else
// the provider's own model (settings.json, then the catalog's default).
//
// Errors are one line that says the fix: nothing configured, an unknown
// name, a cloud provider without a key (naming the variable to set), a local
// server without a model. Mock plays AVA_MOCK_SCRIPT or the configured
// script, and without one answers in echo mode.
// What to do when nothing is configured: a key, a local server, the mock.
// One line, shown by make_provider's error and `ava models`.
std::string_view no_provider_message();

Result<SelectedProvider> make_provider(boost::asio::any_io_executor executor,
                                       const Settings& settings, const ProviderChoice& choice);

// The model make_provider picks for a resolved provider (its rules above);
// empty when nothing names one.
std::string choose_model(const Settings& settings, const ProviderChoice& choice,
                         const ResolvedProvider& provider);

}  // namespace ava::llm
