#include "ava/server/providers.hpp"

#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"

namespace ava::server {

agent::ProviderFactory make_provider_factory(const boost::asio::any_io_executor& executor,
                                             SettingsSnapshot snapshot) {
  return [executor, snapshot = std::move(snapshot)](
             const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
    const auto settings = snapshot();
    AVA_TRY(auto selected,
            llm::make_provider(executor, *settings,
                               {.provider = choice.provider, .model = choice.model}));
    const llm::ModelInfo info = llm::model_info(selected.model, settings.get());
    agent::ProviderBinding binding{.provider = std::move(selected.provider),
                                   .provider_name = selected.provider_name,
                                   .model = selected.model,
                                   .context_window = info.context_window};
    if (info.max_output > 0) binding.max_output_tokens = info.max_output;
    return binding;
  };
}

agent::ProviderFactory recording_provider_factory(std::shared_ptr<recording::Recorder> recorder,
                                                  agent::ProviderFactory factory) {
  return [recorder = std::move(recorder), make = std::move(factory)](
             const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
    AVA_TRY(auto binding, make(choice));
    binding.provider =
        recorder->wrap(std::move(binding.provider), binding.provider_name, binding.model,
                       binding.context_window, binding.max_output_tokens);
    return binding;
  };
}

}  // namespace ava::server
