// UserPromptSubmit: the user's hook sees each prompt before the model does
// (docs/permissions.md). A block is durable (input_blocked: the input leaves
// the queue, the UIs show why); context a hook adds is a durable steer with
// an id derived from the input's, so a restart between the hook and the
// claim neither loses it nor adds it twice. The hook may run again after
// such a restart: hooks run at least once, never their effect twice.
#include <algorithm>

#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;
using nlohmann::json;

asio::awaitable<void> AgentCore::screen_inputs(bool first_step, std::string turn_id) {
  for (;;) {
    std::vector<session::PendingInput> unscreened;
    {
      std::lock_guard gate(gate_);
      const auto ids = claimable(first_step);
      std::lock_guard lock(mutex_);
      for (const auto& input : context_.context().pending) {
        if (std::ranges::find(ids, input.input_id) != ids.end() &&
            !screened_inputs_.contains(input.input_id)) {
          unscreened.push_back(input);
        }
      }
    }
    if (unscreened.empty()) co_return;
    for (const auto& input : unscreened) {
      auto hooking =
          run_hooks(policy::HookEvent::user_prompt_submit, {}, json{{"prompt", input.text}},
                    first_step ? std::string() : turn_id, "");
      const HookOutcome hooked = co_await std::move(hooking);
      screened_inputs_.insert(input.input_id);
      if (hooked.outcome == "block" || hooked.outcome == "deny") {
        std::lock_guard gate(gate_);
        screened_inputs_.erase(input.input_id);
        (void)append({session::InputBlocked{
            .input_id = input.input_id, .hook = "UserPromptSubmit", .reason = hooked.reason}});
        continue;
      }
      if (!hooked.additional_context.empty()) {
        std::string id = "prompt-hook." + input.input_id;
        screened_inputs_.insert(id);
        (void)acknowledge(
            session::InputKind::steer,
            Input{.text = "UserPromptSubmit hook context:\n" + hooked.additional_context,
                  .input_id = std::move(id)});
      }
    }
  }
}

}  // namespace ava::agent
