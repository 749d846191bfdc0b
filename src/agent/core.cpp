#include "core.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/agent/prompt.hpp"
#include "ava/base/id.hpp"

namespace ava::agent {

namespace asio = boost::asio;

namespace {

bool valid_input_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char c : id) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == ':' || c == '-';
    if (!plain) return false;
  }
  return true;
}

}  // namespace

void AgentCore::remember_input(const session::Event& event) {
  const std::string* id = nullptr;
  if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
    id = &input->input_id;
  } else if (const auto* answered = std::get_if<session::CommandOutput>(&event.body)) {
    id = &answered->input_id;
  }
  if (id == nullptr) return;
  const auto [entry, inserted] = acknowledged_.emplace(*id, event.seq);
  if (!inserted) return;
  // A node's key keeps its address across rehashing, so the window can
  // point at it instead of keeping a second copy.
  acknowledged_order_.push_back(&entry->first);
  if (acknowledged_order_.size() > kRememberedInputs) {
    acknowledged_.erase(acknowledged_.find(*acknowledged_order_.front()));
    acknowledged_order_.pop_front();
  }
}

AgentCore::AgentCore(const asio::any_io_executor& executor, AgentOptions options,
                     std::unique_ptr<session::LogWriter> log)
    : executor_(executor),
      strand_(asio::make_strand(executor)),
      options_(std::move(options)),
      log_(std::move(log)),
      session_id_(),
      wake_timer_(strand_),
      approval_timer_(strand_),
      permissions_(options_.permissions) {}

AgentCore::~AgentCore() {
  if (binding_.provider) binding_.provider->close();
}

Result<void> AgentCore::start_new(session::SessionStarted start, ProviderBinding binding) {
  session_id_ = start.session_id;
  context_.apply(session::Event{.seq = 1, .ts_ms = 0, .body = std::move(start)});
  context_window_ = binding.context_window;
  max_output_tokens_ = binding.max_output_tokens;
  binding_ = std::move(binding);
  log_->subscribe([this](const session::Event& event) { on_durable(event); });
  prepare(options_.cwd);
  launch();
  return {};
}

Result<void> AgentCore::start_existing() {
  // The open turn's last step, for a turn that was paused at a step boundary,
  // and the last response's calls, for a step that waits for an approval.
  int last_step = 0;
  std::vector<llm::ToolCallBlock> last_calls;
  for (const auto& event : log_->take_history()) {
    if (const auto* step = std::get_if<session::StepStarted>(&event.body)) last_step = step->step;
    if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      last_calls =
          tool_calls_of(llm::Message{.role = llm::Role::assistant, .content = message->content});
    }
    remember_input(event);
    context_.apply(event);
  }
  log_->subscribe([this](const session::Event& event) { on_durable(event); });
  const session::Context& context = context_.context();
  session_id_ = context.session_id;

  ModelChoice choice{.provider = context.provider, .model = context.model};
  if (!options_.model.provider.empty() || !options_.model.model.empty()) {
    choice = options_.model;
  }
  if (!options_.provider_factory) {
    return fail(ErrorCode::invalid_argument, "agent options need a provider factory");
  }
  AVA_TRY(auto binding, options_.provider_factory(choice));
  if (!binding.provider) return fail(ErrorCode::internal, "provider factory returned no provider");
  if (binding.provider_name != context.provider || binding.model != context.model) {
    AVA_TRY_VOID(
        append({session::ModelChanged{.provider = binding.provider_name, .model = binding.model}}));
  }
  context_window_ = binding.context_window;
  max_output_tokens_ = binding.max_output_tokens;
  binding_ = std::move(binding);

  // Recovery left a step open because its next call waits for a person:
  // the driver continues that step's calls and waits for the decision.
  if (!context.open_turn.empty() && context.open_step && !context.pending_approvals.empty()) {
    std::erase_if(last_calls, [&](const llm::ToolCallBlock& call) {
      return std::ranges::find(context.unpaired_calls, call.id) == context.unpaired_calls.end();
    });
    paused_turn_ = TurnPlan{.turn_id = context.open_turn,
                            .next_step = *context.open_step,
                            .is_new = false,
                            .resume_calls = std::move(last_calls)};
  }
  if (context.paused) {
    pause_requested_ = true;
    state_ = DriverState::paused;
    if (!context.open_turn.empty() && !context.open_step) {
      paused_turn_ =
          TurnPlan{.turn_id = context.open_turn, .next_step = last_step + 1, .is_new = false};
    }
  }
  prepare(context.cwd);
  launch();
  return {};
}

void AgentCore::prepare(const std::filesystem::path& cwd) {
  tools_ = options_.tools ? std::move(*options_.tools) : tool::default_tools();
  options_.tools.reset();
  auto skills = discover_skills(options_.skill_roots);
  std::erase_if(
      skills, [this](const Skill& skill) { return options_.disabled_skills.contains(skill.name); });
  if (!skills.empty() && !tools_.find("skill")) tools_.add(make_skill_tool(skills));
  tool_context_ = tool::ToolContext{.cwd = cwd, .limits = options_.limits, .executor = strand_};
  if (options_.memory && !tools_.find("memory")) tools_.add(make_memory_tool(memory_places()));
  if (options_.subagents && !tools_.find("task")) {
    agents_ = prompts::discover_agents({.cwd = cwd, .home = options_.home});
    tools_.add(make_task_tool(weak_from_this(), agents_));
  }
  if (options_.system_prompt) {
    system_prompt_ = *options_.system_prompt;
  } else {
    project_context_ = prompts::load_project_context({.cwd = cwd, .home = options_.home});
    prompt_inputs_ = PromptInputs{.cwd = cwd,
                                  .project = project_context_,
                                  .skills = std::move(skills),
                                  .memory = options_.memory};
    if (options_.memory) {
      prompt_inputs_.memory_index = prompts::memory_index(prompts::list_memory(memory_places()));
    }
    system_prompt_ = build_system_prompt(prompt_inputs_);
    built_prompt_ = true;
  }
  if (!options_.append_system_prompt.empty()) {
    if (!system_prompt_.empty()) system_prompt_ += "\n\n";
    system_prompt_ += options_.append_system_prompt;
  }
  own_tools_ = tools_.size();
  add_source_tools();
  publish_tool_specs();
  // A sandbox the kernel cannot give is not applied; effective_rules() then
  // makes the calls it would have covered ask instead.
  if (permissions_ && !sandbox_unavailable()) tool_context_.sandbox = permissions_->sandbox;
}

prompts::MemoryPlaces AgentCore::memory_places() const {
  return {.home = options_.home, .cwd = tool_context_.cwd};
}

void AgentCore::refresh_memory_index() {
  if (!built_prompt_ || !options_.memory) return;
  std::string index = prompts::memory_index(prompts::list_memory(memory_places()));
  if (index == prompt_inputs_.memory_index) return;
  prompt_inputs_.memory_index = std::move(index);
  std::string prompt = build_system_prompt(prompt_inputs_);
  if (!options_.append_system_prompt.empty()) prompt += "\n\n" + options_.append_system_prompt;
  {
    std::lock_guard lock(mutex_);  // status and context reports read it
    system_prompt_ = std::move(prompt);
  }
  publish_tool_specs();  // the fixed token estimate follows the prompt
}

void AgentCore::launch() {
  auto self = shared_from_this();
  asio::co_spawn(
      strand_, [self]() { return self->drive(); },
      [self](const std::exception_ptr& failure) {
        if (!failure) return;
        try {
          std::rethrow_exception(failure);
        } catch (const std::exception& error) {
          spdlog::error("agent {}: driver stopped: {}", self->session_id_, error.what());
        }
        std::lock_guard lock(self->mutex_);
        self->driver_done_ = true;
        self->state_ = DriverState::closed;
      });
}

void AgentCore::on_durable(const session::Event& event) {
  std::lock_guard lock(mutex_);
  if (const auto* decided = std::get_if<session::ApprovalDecided>(&event.body)) {
    decisions_.insert_or_assign(decided->approval_id, *decided);
    for (const auto& waiting : context_.context().pending_approvals) {
      if (waiting.request.approval_id == decided->approval_id) {
        answered_requests_.insert_or_assign(waiting.request.call_id, waiting.request);
      }
    }
  }
  remember_input(event);
  context_.apply(event);
  if (std::holds_alternative<session::Compacted>(event.body)) ++compactions_;
}

Result<session::Seq> AgentCore::append(std::vector<session::EventBody> bodies) {
  return log_->append_batch(std::move(bodies));
}

void AgentCore::emit_live(const LiveEvent& event) {
  std::vector<LiveCallback> callbacks;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, callback] : live_subscribers_) callbacks.push_back(callback);
  }
  for (const auto& callback : callbacks) callback(event);
}

std::uint64_t AgentCore::subscribe(EventCallback callback) {
  return log_->subscribe(std::move(callback));
}

std::uint64_t AgentCore::subscribe_live(LiveCallback callback) {
  std::lock_guard lock(mutex_);
  const auto id = next_live_id_++;
  live_subscribers_.emplace(id, std::move(callback));
  return id;
}

void AgentCore::unsubscribe(std::uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    if (live_subscribers_.erase(id) > 0) return;
  }
  log_->unsubscribe(id);
}

Result<InputReceipt> AgentCore::acknowledge(session::InputKind kind, Input input) {
  if (input.text.empty() && input.attachments.empty()) {
    return fail(ErrorCode::invalid_argument, "input has neither text nor attachments");
  }
  if (!input.input_id.empty() && !valid_input_id(input.input_id)) {
    return fail(ErrorCode::invalid_argument,
                "an input id has 1-128 characters of A-Z a-z 0-9 . _ : -");
  }
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
  }
  InputReceipt receipt{.input_id = input.input_id.empty() ? base::new_id() : input.input_id};
  // A resent input gets its first receipt, even if its command is gone.
  if (answered_before(receipt)) return receipt;
  // A slash command is expanded here, once: the log keeps what was typed and
  // what the model gets, so a replay or a restart needs no template file.
  AVA_TRY(ExpandedCommand command, expand_command(input.text));
  if (command.builtin) {
    if (!input.attachments.empty()) {
      return fail(ErrorCode::invalid_argument, "/" + command.name + " takes no attachments");
    }
    return answer_builtin(std::move(receipt), std::move(input.text), command);
  }
  {
    // The gate: a claim never runs between this append and the pending
    // queue seeing it (on_durable applies it before append returns). It
    // also orders two sends of one id, so only the first is appended.
    std::lock_guard gate(gate_);
    if (answered_before(receipt)) return receipt;
    AVA_TRY(
        receipt.seq,
        append({session::InputAcknowledged{.input_id = receipt.input_id,
                                           .kind = kind,
                                           .text = std::move(input.text),
                                           .attachments = std::move(input.attachments),
                                           .command = std::move(command.name),
                                           .expansion = std::move(command.expansion),
                                           .allowed_tools = std::move(command.allowed_tools),
                                           .allowed_tools_unasked = command.allowed_tools_unasked,
                                           .plan = command.plan,
                                           .model = std::move(command.model)}}));
  }
  {
    std::lock_guard lock(mutex_);
    held_ = false;
  }
  notify();
  return receipt;
}

bool AgentCore::answered_before(InputReceipt& receipt) const {
  std::lock_guard lock(mutex_);
  const auto known = acknowledged_.find(receipt.input_id);
  if (known == acknowledged_.end()) return false;
  receipt.seq = known->second;
  receipt.duplicate = true;
  return true;
}

Result<InputReceipt> AgentCore::answer_builtin(InputReceipt receipt, std::string text,
                                               const ExpandedCommand& command) {
  std::vector<session::EventBody> events;
  AVA_TRY(std::string output, run_builtin(command, events));
  events.emplace_back(session::CommandOutput{.input_id = receipt.input_id,
                                             .text = std::move(text),
                                             .command = command.name,
                                             .output = std::move(output)});
  {
    std::lock_guard gate(gate_);
    if (answered_before(receipt)) return receipt;
    AVA_TRY(receipt.seq, append(std::move(events)));
  }
  notify();  // /compact: the driver runs it when idle
  return receipt;
}

std::vector<std::shared_ptr<Agent>> AgentCore::children() const {
  std::lock_guard lock(mutex_);
  return children_;
}

Result<void> AgentCore::request_pause() {
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
    pause_requested_ = true;
    if (state_ == DriverState::running) state_ = DriverState::pausing;
    wake_pending_ = true;
    asio::post(strand_, [self = shared_from_this()] { self->wake_timer_.cancel(); });
  }
  // A subagent pauses at its own next step boundary.
  for (const auto& child : children()) (void)child->pause();
  return {};
}

Result<void> AgentCore::request_resume() {
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
    pause_requested_ = false;
    held_ = false;
    if (state_ == DriverState::pausing) state_ = DriverState::running;
  }
  for (const auto& child : children()) (void)child->resume();
  notify();
  return {};
}

Result<void> AgentCore::request_abort() {
  {
    std::lock_guard lock(mutex_);
    if (close_requested_ && driver_done_) return fail(ErrorCode::conflict, "the agent is closed");
    const bool running = state_ == DriverState::running || state_ == DriverState::waiting ||
                         state_ == DriverState::pausing || state_ == DriverState::aborting;
    // A turn paused at a step boundary is still open in the log.
    const bool paused_turn = !context_.context().open_turn.empty();
    if (!running && !paused_turn) return {};  // nothing to abort
    abort_requested_ = true;
    if (running) state_ = DriverState::aborting;
  }
  asio::post(strand_, [self = shared_from_this()] {
    self->cancel_.emit(asio::cancellation_type::terminal);
    self->wake_timer_.cancel();
    self->approval_timer_.cancel();
  });
  for (const auto& child : children()) (void)child->abort();
  notify();
  return {};
}

Result<void> AgentCore::set_model(const ModelChoice& choice) {
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
  }
  AVA_TRY(auto binding, options_.provider_factory(choice));
  if (!binding.provider) return fail(ErrorCode::internal, "provider factory returned no provider");
  AVA_TRY_VOID(
      append({session::ModelChanged{.provider = binding.provider_name, .model = binding.model}}));
  std::lock_guard lock(mutex_);
  context_window_ = binding.context_window;
  max_output_tokens_ = binding.max_output_tokens;
  if (next_binding_ && next_binding_->provider) next_binding_->provider->close();
  next_binding_ = std::move(binding);
  return {};
}

void AgentCore::swap_provider_if_requested() {
  std::optional<ProviderBinding> next;
  {
    std::lock_guard lock(mutex_);
    next.swap(next_binding_);
  }
  if (!next) return;
  if (binding_.provider) binding_.provider->close();
  binding_ = std::move(*next);
}

void AgentCore::request_close() {
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return;
    close_requested_ = true;
    if (state_ == DriverState::running || state_ == DriverState::pausing) {
      state_ = DriverState::aborting;
    }
    abort_requested_ = true;
  }
  asio::post(strand_, [self = shared_from_this()] {
    self->cancel_.emit(asio::cancellation_type::terminal);
    self->approval_timer_.cancel();
  });
  // A running subagent ends its turn; the call that started it is interrupted.
  for (const auto& child : children()) (void)child->abort();
  notify();
}

void AgentCore::notify() {
  {
    std::lock_guard lock(mutex_);
    wake_pending_ = true;
  }
  asio::post(strand_, [self = shared_from_this()] { self->wake_timer_.cancel(); });
}

void AgentCore::notify_waiters() {
  for (auto* timer : idle_waiters_) timer->cancel();
}

Status AgentCore::status() const {
  std::lock_guard lock(mutex_);
  const auto& context = context_.context();
  return Status{.state = state_,
                .session_id = session_id_,
                .provider = context.provider,
                .model = context.model,
                .turn_id = context.open_turn,
                .step = context.open_step.value_or(0),
                .pending_inputs = context.pending.size(),
                .activity = activity_,
                .usage = context.usage,
                .last_seq = context.last_seq,
                .last_error = last_error_,
                .approvals = approvals_of(context),
                .permission_mode = effective_mode(),
                .sandbox = sandbox_name(),
                .granted_rules = context.granted_rules,
                .goal = context.goal,
                .log_failed = log_->failed()};
}

std::vector<session::ApprovalRequested> AgentCore::approvals_of(const session::Context& context) {
  std::vector<session::ApprovalRequested> approvals;
  for (const auto& pending : context.pending_approvals) approvals.push_back(pending.request);
  return approvals;
}

std::string AgentCore::sandbox_name() const {
  if (!permissions_) return "off";
  if (sandbox_unavailable()) return "unavailable";
  return std::string(proc::to_string(permissions_->sandbox.mode));
}

// Runs on the strand, where the driver cancels idle_waiters_ whenever it
// settles: checking `settled` and starting the wait happen without a
// suspension between them, so no notification is lost.
asio::awaitable<void> AgentCore::wait_until(std::function<bool()> settled) {
  auto self = shared_from_this();
  auto wait = [self, settled = std::move(settled)]() -> asio::awaitable<void> {
    for (;;) {
      {
        std::lock_guard lock(self->mutex_);
        if (settled()) co_return;
      }
      asio::steady_timer timer(self->strand_, asio::steady_timer::time_point::max());
      self->idle_waiters_.push_back(&timer);
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      std::erase(self->idle_waiters_, &timer);
    }
  };
  auto waiting = asio::co_spawn(strand_, wait(), asio::use_awaitable);
  co_await std::move(waiting);
}

asio::awaitable<void> AgentCore::wait_idle() {
  // The predicate runs with mutex_ held. It is a named variable, not a
  // temporary inside co_await, which g++ 12 mishandles.
  std::function<bool()> settled = [this] {
    const bool runnable =
        (!context_.context().pending.empty() && !held_) || compact_requested_.has_value();
    // Paused counts only while the pause still stands (not after a resume
    // or an abort the driver has yet to see).
    const bool paused =
        state_ == DriverState::paused && pause_requested_ && !abort_requested_ && !wake_pending_;
    const bool idle = state_ == DriverState::idle && !runnable && !wake_pending_;
    return driver_done_ || paused || idle;
  };
  auto waiting = wait_until(std::move(settled));
  co_await std::move(waiting);
}

asio::awaitable<Result<void>> AgentCore::close() {
  request_close();
  std::function<bool()> done = [this] { return driver_done_; };
  auto waiting = wait_until(std::move(done));
  co_await std::move(waiting);
  if (binding_.provider) binding_.provider->close();
  co_return log_->close();
}

}  // namespace ava::agent
