#pragma once

#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "ava/automation/scheduler.hpp"
#include "server/conversation_host.hpp"

namespace ava::server {

// Each automation run is a conversation in the automation's project (the
// folder registered as a project if it is not one): created with the
// automation's model, mode and rules and nobody to ask, marked with the
// automation's id, given the prompt as its first input. The run ends with
// the turn; past the time limit the turn is aborted (docs/automations.md).
class AutomationRunner final : public automation::Runner {
 public:
  AutomationRunner(boost::asio::any_io_executor executor, ConversationHost& host,
                   registry::Registry& registry)
      : executor_(std::move(executor)), host_(host), registry_(registry) {}

  Result<std::string> start(const automation::Automation& automation, std::int64_t scheduled_ms,
                            std::function<void(automation::RunOutcome)> ended) override;

 private:
  boost::asio::any_io_executor executor_;
  ConversationHost& host_;
  registry::Registry& registry_;
};

}  // namespace ava::server
