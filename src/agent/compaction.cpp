// Compaction: when the next request would fill too much of the model's
// context window, the older turns are summarized by the model and a
// `compacted` event replaces them with the summary in every later request,
// replay and recovery (session::ContextBuilder applies it).

#include <spdlog/spdlog.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;

namespace {

// The recent part kept verbatim, as a share of the window.
constexpr double keep_fraction = 0.25;

constexpr std::string_view summary_system =
    "You write handoff summaries of coding sessions so that the work can continue without "
    "the full history.";

constexpr std::string_view summary_instruction =
    "Summarize the conversation so far so the work can continue without it. Include the "
    "user's goals and constraints, decisions made, files read or changed (with paths), "
    "commands run and their outcomes, errors met, the current state and the next steps. "
    "Be concise and factual. Do not call tools; answer with the summary only.";

// The first message kept: a user message (a turn's or a step's claimed
// input), so no tool call is separated from its result. The earliest one
// whose suffix fits the keep budget, else the latest one. 0 when none.
std::size_t choose_cut(const std::vector<llm::Message>& messages, std::int64_t keep_budget) {
  std::vector<std::int64_t> suffix(messages.size() + 1, 0);
  for (std::size_t i = messages.size(); i-- > 0;) {
    suffix[i] = suffix[i + 1] + estimate_message_tokens(messages[i]);
  }
  std::size_t latest = 0;
  for (std::size_t i = 1; i < messages.size(); ++i) {
    if (messages[i].role != llm::Role::user) continue;
    if (suffix[i] <= keep_budget) return i;
    latest = i;
  }
  return latest;
}

std::string text_of(const llm::Message& message) {
  std::string text;
  for (const auto& block : message.content) {
    if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
  }
  return text;
}

}  // namespace

asio::awaitable<void> AgentCore::compact_if_needed(const std::string& turn_id, int step) {
  // The estimate is taken in place; the request is copied only to compact.
  llm::Request request;
  std::vector<session::Seq> seqs;
  std::int64_t tokens = fixed_tokens_;
  std::int64_t window = 0;
  {
    std::lock_guard lock(mutex_);
    for (const auto& message : context_.context().messages) {
      tokens += estimate_message_tokens(message);
    }
    window = context_window_;
    if (window > 0 &&
        static_cast<double>(tokens) > options_.compact_fraction * static_cast<double>(window)) {
      request = build_request(context_.context());
      seqs = context_.context().message_seqs;
    }
  }
  if (request.messages.empty()) co_return;
  const auto keep_budget = static_cast<std::int64_t>(keep_fraction * static_cast<double>(window));
  const std::size_t cut = choose_cut(request.messages, keep_budget);
  if (cut == 0) co_return;
  co_await compact(turn_id, step, std::move(request), std::move(seqs), cut, tokens, "");
}

asio::awaitable<void> AgentCore::compact_on_request(std::string focus) {
  llm::Request request;
  std::vector<session::Seq> seqs;
  std::int64_t tokens = fixed_tokens_;
  {
    std::lock_guard lock(mutex_);
    const auto& context = context_.context();
    for (const auto& message : context.messages) tokens += estimate_message_tokens(message);
    request = build_request(context);
    seqs = context.message_seqs;
    // Everything so far is summarized: the summary stands for the events up
    // to the last one, and every later message is kept.
    seqs.push_back(context.last_seq + 1);
  }
  if (request.messages.empty()) co_return;
  const std::size_t cut = request.messages.size();
  {
    std::lock_guard lock(mutex_);
    activity_ = "Compacting the conversation";
  }
  set_state(DriverState::running);
  co_await compact("", 0, std::move(request), std::move(seqs), cut, tokens, std::move(focus));
  std::lock_guard lock(mutex_);
  activity_.clear();
}

// `seqs[cut]` is the first event kept after the summary.
asio::awaitable<void> AgentCore::compact(const std::string& turn_id, int step, llm::Request request,
                                         std::vector<session::Seq> seqs, std::size_t cut,
                                         std::int64_t tokens, std::string focus) {
  const bool manual = turn_id.empty();
  if (has_hooks(policy::HookEvent::pre_compact)) {
    auto hooking = run_hooks(
        policy::HookEvent::pre_compact, {},
        nlohmann::json{{"trigger", manual ? "manual" : "auto"}, {"custom_instructions", focus}},
        turn_id, "");
    co_await std::move(hooking);
  }
  llm::Request summarize{.model = request.model,
                         .system = std::string(summary_system),
                         .messages = {request.messages.begin(),
                                      request.messages.begin() + static_cast<std::ptrdiff_t>(cut)},
                         // Providers want the tools that the history's calls used.
                         .tools = request.tools,
                         .max_output_tokens = std::int64_t{8192}};
  std::string instruction(summary_instruction);
  if (!focus.empty()) instruction += "\n\nFocus the summary on: " + focus;
  summarize.messages.push_back(
      llm::Message{.role = llm::Role::user, .content = {llm::TextBlock{std::move(instruction)}}});
  auto streaming = cancellable(binding_.provider->stream(summarize, {}));
  Result<llm::Response> result = co_await std::move(streaming);
  if (!result) {
    // Cancelled: an automatic one lets the step notice the abort.
    if (manual && result.error().code != ErrorCode::cancelled) {
      (void)append(
          {session::ErrorOccurred{.code = std::string(to_string(result.error().code)),
                                  .message = "compaction failed: " + result.error().message}});
    }
    co_return;
  }
  std::vector<session::EventBody> events;
  if (result->usage != llm::Usage{}) {
    events.emplace_back(session::UsageRecorded{
        .turn_id = turn_id, .step = step, .model = request.model, .usage = result->usage});
  }
  const std::string summary = text_of(result->message);
  if (const auto& error = result->error; error || summary.empty()) {
    const std::string why = error ? error->message : std::string("empty summary");
    spdlog::warn("agent {}: compaction skipped: {}", session_id_, why);
    if (manual) {
      events.emplace_back(
          session::ErrorOccurred{.code = "compaction", .message = "compaction failed: " + why});
    }
  } else {
    events.emplace_back(session::Compacted{
        .summary = summary, .first_kept_seq = seqs[cut], .tokens_before = tokens});
  }
  if (!events.empty()) (void)append(std::move(events));
}

}  // namespace ava::agent
