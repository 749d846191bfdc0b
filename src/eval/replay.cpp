#include "ava/eval/replay.hpp"

#include <fmt/format.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/json.hpp"
#include "ava/recording/json.hpp"
#include "ava/recording/recording.hpp"
#include "eval/temp_folder.hpp"

namespace ava::eval {
namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What the replayed agent consumed, and the first way it left the recording.
struct ReplayState {
  recording::Recording recording;
  int next_exchange = 0;
  int tool_calls = 0;
  std::string refusal;
  void refuse(std::string why) {
    if (refusal.empty()) refusal = std::move(why);
  }
};

llm::Response refused_response(const std::string& why) {
  return {.stop = {.reason = llm::StopReason::error},
          .error = llm::StreamError{.kind = llm::ErrorKind::invalid_request,
                                    .message = "replay: " + why,
                                    .retryable = false}};
}

class ReplayProvider final : public llm::Provider {
 public:
  explicit ReplayProvider(std::shared_ptr<ReplayState> state) : state_(std::move(state)) {}

  asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                llm::EventSink on_event) override {
    auto& state = *state_;
    const int index = state.next_exchange++;
    const auto& exchanges = state.recording.exchanges;
    if (index >= static_cast<int>(exchanges.size())) {
      state.refuse(fmt::format("the agent made request {}, but the recording holds {} exchange{}",
                               index + 1, exchanges.size(), exchanges.size() == 1 ? "" : "s"));
      co_return refused_response(state.refusal);
    }
    const auto& exchange = exchanges[static_cast<std::size_t>(index)];
    const std::string difference =
        recording::first_difference(exchange.request, recording::encode_request(request));
    if (!difference.empty()) {
      state.refuse(
          fmt::format("request {} differs from the recording at {}", index + 1, difference));
      co_return refused_response(state.refusal);
    }
    if (!exchange.response) {
      state.refuse(fmt::format("request {} was cancelled in the recording", index + 1));
      co_return refused_response(state.refusal);
    }
    for (const auto& event : exchange.events) {
      if (on_event) on_event(event);
    }
    co_return *exchange.response;
  }

 private:
  std::shared_ptr<ReplayState> state_;
};

// A tool with the recorded spec whose every call is answered from tools.jsonl.
class ReplayTool final : public tool::Tool {
 public:
  ReplayTool(const llm::ToolSpec& spec, std::shared_ptr<ReplayState> state)
      : spec_{.name = spec.name, .description = spec.description, .parameters = spec.parameters},
        state_(std::move(state)) {}

  const tool::ToolSpec& spec() const override { return spec_; }
  // The recorded result already says what the real tool made of the
  // arguments, valid or not.
  const json& accepted_arguments() const override { return anything_; }

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    auto& state = *state_;
    ++state.tool_calls;
    const auto found = state.recording.tools.find(context.call_id);
    if (found == state.recording.tools.end()) {
      state.refuse(
          fmt::format("tool call {} ({}) has no recorded response", context.call_id, spec_.name));
      co_return tool::ToolResult::error("replay: " + state.refusal);
    }
    const auto& recorded = found->second;
    auto recorded_arguments =
        base::parse_json(recorded.arguments.empty() ? "{}" : recorded.arguments);
    if (recorded.name != spec_.name || !recorded_arguments || *recorded_arguments != arguments) {
      state.refuse(fmt::format("tool call {} is {} {} now, but {} {} in the recording",
                               context.call_id, spec_.name, arguments.dump(), recorded.name,
                               recorded.arguments));
      co_return tool::ToolResult::error("replay: " + state.refusal);
    }
    if (recorded.status == "interrupted" || recorded.status == "skipped") {
      state.refuse(fmt::format("tool call {} was {} in the recording (an aborted turn)",
                               context.call_id, recorded.status));
    }
    co_return tool::ToolResult{
        .content = recorded.content,
        .is_error = recorded.status != "ok",
        .details = recorded.details.is_null() ? json::object() : recorded.details};
  }

 private:
  tool::ToolSpec spec_;
  std::shared_ptr<ReplayState> state_;
  json anything_ = json::object();
};

struct Observed {
  std::string reason;
  std::string text;
};

}  // namespace

Result<ReplayReport> replay(const fs::path& dir) {
  AVA_TRY(auto loaded, recording::load(dir));
  const recording::Manifest manifest = loaded.manifest;
  if (!manifest.not_replayable.empty()) {
    return fail(ErrorCode::unsupported,
                fmt::format("{} cannot be replayed: {}", dir.string(), manifest.not_replayable));
  }
  // The turns to replay: those that finished (a conversation's recording may
  // end in one that was running when its backend stopped).
  // One turn (`ava -p`): the manifest's prompt and outcome. Several: each.
  std::vector<recording::RecordedTurn> turns;
  const bool by_turn = manifest.turns.size() > 1;
  if (!by_turn) {
    if (manifest.outcome) turns.push_back({.prompt = manifest.prompt, .outcome = manifest.outcome});
  } else {
    for (const auto& turn : manifest.turns) {
      if (!turn.outcome) break;
      turns.push_back(turn);
    }
  }
  if (turns.empty()) {
    return fail(ErrorCode::conflict,
                fmt::format("{} is incomplete: the recorded run never finished a turn "
                            "(no outcome in recording.json)",
                            dir.string()));
  }
  // One turn: every exchange recorded. Several: up to the last finished one.
  const int expected_exchanges =
      by_turn ? turns.back().outcome->exchanges : static_cast<int>(loaded.exchanges.size());
  if (loaded.exchanges.empty()) {
    return fail(ErrorCode::conflict, fmt::format("{} holds no provider exchange", dir.string()));
  }
  auto first = recording::decode_request(loaded.exchanges.front().request);
  if (!first) return std::unexpected(first.error());

  auto state = std::make_shared<ReplayState>();
  // Exchanges of a turn that never finished are not the replay's to use (a
  // count past the file's end leaves it whole: the replay then finds the
  // exchange missing and says so).
  if (expected_exchanges >= 0 && expected_exchanges < static_cast<int>(loaded.exchanges.size())) {
    loaded.exchanges.resize(static_cast<std::size_t>(expected_exchanges));
  }
  state->recording = std::move(loaded);
  AVA_TRY(auto scratch, TempFolder::create("ava-replay"));

  agent::AgentOptions options;
  options.provider_factory =
      [state, manifest](const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
    return agent::ProviderBinding{
        .provider = std::make_unique<ReplayProvider>(state),
        .provider_name = manifest.provider,
        .model = choice.model.empty() ? manifest.model : choice.model,
        .context_window = manifest.context_window > 0 ? manifest.context_window : 128'000,
        .max_output_tokens = manifest.max_output_tokens};
  };
  options.model = {.provider = manifest.provider, .model = manifest.model};
  options.cwd = scratch.path();
  tool::ToolRegistry tools;
  for (const auto& spec : first->tools) tools.add(std::make_unique<ReplayTool>(spec, state));
  options.tools = std::move(tools);
  options.system_prompt = first->system;
  options.memory = false;
  options.subagents = false;
  if (manifest.max_steps > 0) options.max_steps = manifest.max_steps;

  asio::io_context io;
  AVA_TRY(auto agent, agent::Agent::create(io.get_executor(), scratch.path() / "replay.jsonl.zst",
                                           std::move(options)));
  Observed observed;
  agent->subscribe([&observed](const session::Event& event) {
    if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      std::string text;
      for (const auto& block : message->content) {
        if (const auto* t = std::get_if<content::TextBlock>(&block)) text += t->text;
      }
      if (!text.empty()) observed.text = std::move(text);
    } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
      observed.reason = std::string(session::to_string(ended->reason));
    }
  });

  // Each turn's prompt as its follow-up, in order; each outcome checked
  // before the next turn starts.
  std::optional<Error> failure;
  auto check_turn = [&](std::size_t index) {
    const auto& expected = *turns[index].outcome;
    const std::string which =
        turns.size() > 1 ? fmt::format("turn {} of {}: ", index + 1, turns.size()) : std::string();
    if (state->refusal.empty() && observed.reason != expected.reason) {
      state->refuse(fmt::format("{}the outcome changed: the recorded turn ended {}, the replay {}",
                                which, expected.reason,
                                observed.reason.empty() ? "open" : observed.reason));
    }
    if (state->refusal.empty() && observed.text != expected.text) {
      state->refuse(fmt::format("{}the final answer changed: {}", which,
                                recording::first_difference(expected.text, observed.text)));
    }
  };
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (std::size_t i = 0; i < turns.size() && state->refusal.empty(); ++i) {
          observed = {};
          if (auto receipt = agent->followup(turns[i].prompt); !receipt) {
            failure = receipt.error();
            break;
          }
          co_await agent->wait_idle();
          check_turn(i);
        }
        if (auto closed = co_await agent->close(); !closed && !failure) failure = closed.error();
      },
      [](const std::exception_ptr& error) {
        if (error) std::rethrow_exception(error);
      });
  io.run();
  if (failure) return std::unexpected(std::move(*failure));

  ReplayReport report{.exchanges_recorded = expected_exchanges,
                      .exchanges_replayed = state->next_exchange,
                      .tool_calls = state->tool_calls,
                      .turns = static_cast<int>(turns.size()),
                      .outcome = observed.reason,
                      .text = observed.text};
  if (state->refusal.empty() && report.exchanges_replayed < report.exchanges_recorded) {
    state->refuse(fmt::format("the replay ended after {} of the {} recorded exchanges",
                              report.exchanges_replayed, report.exchanges_recorded));
  }
  report.refusal = state->refusal;
  report.passed = report.refusal.empty();
  return report;
}

}  // namespace ava::eval
