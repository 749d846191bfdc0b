// The agent behind `ava chat`, on its own thread (chat_session.hpp).

#include "cli/chat_session.hpp"

#include <pthread.h>

#include <csignal>
#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace ava::cli {
namespace {

namespace asio = boost::asio;

// Signals belong to the terminal's thread (Ctrl-C must interrupt its read),
// so every thread started while opening the agent has them blocked. Children
// get a clean mask from proc's spawn.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace

std::expected<std::unique_ptr<ChatSession>, SetupFailure> ChatSession::open(
    const PromptFlags& flags) {
  SignalsBlocked blocked;
  auto local = make_local_agent(
      flags, {.permission_defaults = {.sandbox = proc::SandboxMode::workspace_write,
                                      .auto_inside_sandbox = false,
                                      .can_ask = true},
              .customize = {}});
  if (!local) return std::unexpected(std::move(local.error()));
  return std::unique_ptr<ChatSession>(new ChatSession(std::move(*local)));
}

ChatSession::ChatSession(std::unique_ptr<LocalAgent> local) : local_(std::move(local)) {
  local_->agent->subscribe([this](const session::Event& event) { push(event); });
  local_->agent->subscribe_live([this](const agent::LiveEvent& event) {
    // Only what is shown: state changes are read from the events.
    if (!std::holds_alternative<agent::StateChanged>(event)) push(event);
  });
  work_.emplace(local_->io.get_executor());
  thread_ = std::thread([this] { local_->io.run(); });
}

ChatSession::~ChatSession() {
  std::promise<void> closed;
  asio::co_spawn(
      local_->io,
      [this]() -> asio::awaitable<void> {
        (void)co_await local_->agent->close();
        co_await local_->hub->close();
      },
      [&closed](const std::exception_ptr&) { closed.set_value(); });
  closed.get_future().wait();
  work_.reset();
  local_->io.stop();
  thread_.join();
  local_.reset();
}

void ChatSession::push(Item item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(std::move(item));
  }
  ready_.notify_one();
}

Result<void> ChatSession::send(const std::string& text) {
  AVA_TRY(auto receipt, local_->agent->followup(text));
  (void)receipt;
  (void)local_->agent->resume();  // a paused conversation given input runs
  watch_turn();
  return {};
}

void ChatSession::watch_turn() {
  asio::co_spawn(
      local_->io,
      [this]() -> asio::awaitable<void> {
        co_await local_->agent->wait_idle();
        push(TurnDone{});
      },
      asio::detached);
}

std::optional<ChatSession::Item> ChatSession::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [this] { return !items_.empty(); })) return std::nullopt;
  Item item = std::move(items_.front());
  items_.pop_front();
  return item;
}

}  // namespace ava::cli
