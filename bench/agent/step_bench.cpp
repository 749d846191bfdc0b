// Harness overhead per step: what the agent itself spends on one provider
// step (claim, request built from the log's context, events appended, a tool
// dispatched) with a 500-event context, when the provider and the tool take
// no time at all.

#include <benchmark/benchmark.h>

#include <atomic>

#include "agent/agent_test_util.hpp"

using namespace ava;

namespace {

// Answers with a call of the no-op tool until `steps_per_turn` steps, then text.
class InstantProvider final : public llm::Provider {
 public:
  explicit InstantProvider(int steps_per_turn) : steps_per_turn_(steps_per_turn) {}
  boost::asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                       llm::EventSink on_event) override {
    llm::Response response;
    response.message.role = llm::Role::assistant;
    const bool last = ++step_ % steps_per_turn_ == 0;
    if (last) {
      response.message.content.emplace_back(llm::TextBlock{"done"});
      response.stop.reason = llm::StopReason::end_turn;
    } else {
      llm::ToolCallBlock call{
          .id = "c" + std::to_string(step_), .name = "noop", .arguments = R"({"note":"x"})"};
      if (on_event) on_event(llm::ToolCallComplete{call});
      response.message.content.emplace_back(std::move(call));
      response.stop.reason = llm::StopReason::tool_use;
    }
    response.usage.input_tokens = static_cast<std::int64_t>(request.messages.size());
    co_return response;
  }

 private:
  int steps_per_turn_;
  int step_ = 0;
};

class NoopTool final : public tool::Tool {
 public:
  const tool::ToolSpec& spec() const override { return spec_; }
  boost::asio::awaitable<Result<tool::ToolResult>> execute(const nlohmann::json&,
                                                           tool::ToolContext&) override {
    co_return tool::ToolResult::text("ok");
  }

 private:
  tool::ToolSpec spec_{
      .name = "noop",
      .description = "Does nothing.",
      .parameters = {{"type", "object"}, {"properties", {{"note", {{"type", "string"}}}}}}};
};

constexpr int steps_per_turn = 25;

// Argument 0: no permission check (an embedder's agent); 1: the check in
// auto mode with a deny rule; 2: that and a no-op PreToolUse hook (`true`),
// which runs /bin/sh once per call. The differences per step are what the
// check and a hook add to each tool call.
void BM_HarnessPerStep(benchmark::State& state) {
  test::TempDir dir;
  test::Runtime runtime;
  auto options = test::basic_options(
      [](const agent::ModelChoice&) -> Result<agent::ProviderBinding> {
        return agent::ProviderBinding{.provider = std::make_unique<InstantProvider>(steps_per_turn),
                                      .provider_name = "instant",
                                      .model = "instant"};
      },
      dir.path());
  tool::ToolRegistry tools;
  tools.add(std::make_unique<NoopTool>());
  options.tools = std::move(tools);
  if (state.range(0) >= 1) {
    options.permissions = agent::PermissionOptions{.project = dir.path()};
    options.permissions->rules.mode = policy::Mode::auto_;
    options.permissions->rules.deny.push_back(*policy::parse_rule("bash(rm -rf *)"));
  }
  if (state.range(0) >= 2) {
    std::vector<std::string> unsupported;
    (void)policy::add_hooks(
        options.permissions->hooks,
        nlohmann::json::parse(
            R"({"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]})"),
        "bench", unsupported);
  }
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  if (!agent) {
    state.SkipWithError(agent.error().message.c_str());
    return;
  }
  // Warm up to a 500-event context: each turn of 25 steps adds ~125 events.
  while ((*agent)->status().last_seq < 500) {
    (void)(*agent)->followup("warm up");
    runtime.wait_idle(**agent);
  }
  state.counters["context_events"] = static_cast<double>((*agent)->status().last_seq);
  for (auto _ : state) {
    (void)(*agent)->followup("go");
    runtime.wait_idle(**agent);
  }
  // items_per_second is steps per second; its inverse is the time per step
  // (the turn's one fsync included).
  state.SetItemsProcessed(state.iterations() * steps_per_turn);
  runtime.close(**agent);
}
BENCHMARK(BM_HarnessPerStep)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(4);

}  // namespace
