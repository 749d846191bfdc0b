#pragma once

#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "ava/agent/agent.hpp"
#include "ava/llm/settings.hpp"
#include "ava/recording/recorder.hpp"

namespace ava::server {

// The agent's provider factory over settings.json, auth.json and the
// environment: names resolve through llm::make_provider, and the catalog
// (with settings.json "models" overrides) supplies the context window that
// compaction works within and the output cap.
// `settings` is asked on every call, so a server whose settings change sees
// the change in the next conversation it opens.
using SettingsSnapshot = std::function<std::shared_ptr<const llm::Settings>()>;
agent::ProviderFactory make_provider_factory(const boost::asio::any_io_executor& executor,
                                             SettingsSnapshot settings);

// `factory`, with every provider it makes wrapped by `recorder` (docs/eval.md):
// `ava -p --record` and conversations created with "record".
agent::ProviderFactory recording_provider_factory(std::shared_ptr<recording::Recorder> recorder,
                                                  agent::ProviderFactory factory);

}  // namespace ava::server
