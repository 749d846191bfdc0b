#pragma once

#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "ava/agent/agent.hpp"
#include "ava/llm/settings.hpp"

namespace ava::app {

// The agent's provider factory over settings.json, auth.json and the
// environment: names resolve through llm::make_provider, and the catalog
// (with settings.json "models" overrides) supplies the context window that
// compaction works within and the output cap.
agent::ProviderFactory make_provider_factory(const boost::asio::any_io_executor& executor,
                                             const std::shared_ptr<const llm::Settings>& settings);

}  // namespace ava::app
