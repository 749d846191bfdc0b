// The agent's requests to the editor, awaited as coroutines on the tool's
// executor while the bridge's reader thread delivers the answers.

#include "ava/acp/editor.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/json.hpp"

namespace ava::acp {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr std::size_t remembered_calls = 256;  // announced ids kept
constexpr std::size_t max_waiting_calls = 64;  // calls with actions not yet announced

bool offered(const json& object, const char* key) { return base::json_value(object, key, false); }

// One call's answer, handed from the reader thread to the waiting
// coroutine's executor.
struct Waiter {
  explicit Waiter(const asio::any_io_executor& executor)
      : timer(executor, asio::steady_timer::time_point::max()) {}
  asio::steady_timer timer;
  std::optional<Result<json>> answer;  // touched on the timer's executor only
  bool cancelled = false;
};

}  // namespace

EditorCapabilities parse_editor_capabilities(const json& initialize_params) {
  const auto client = base::json_value(initialize_params, "clientCapabilities", json::object());
  const auto files = base::json_value(client, "fs", json::object());
  return {.read_text_file = offered(files, "readTextFile"),
          .write_text_file = offered(files, "writeTextFile"),
          .terminal = offered(client, "terminal")};
}

void EditorLink::set_session_id(std::string session_id) {
  std::lock_guard lock(mutex_);
  session_id_ = std::move(session_id);
}

std::string EditorLink::session_id() const {
  std::lock_guard lock(mutex_);
  return session_id_;
}

asio::awaitable<Result<json>> EditorLink::call(std::string method, json params,
                                               std::chrono::milliseconds timeout) {
  co_await asio::this_coro::throw_if_cancelled(false);
  auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor);
  params["sessionId"] = session_id();
  channel_->request(method, std::move(params), [waiter](Result<json> answer) {
    asio::post(waiter->timer.get_executor(), [waiter, answer = std::move(answer)]() mutable {
      if (!waiter->answer) waiter->answer = std::move(answer);
      waiter->timer.cancel();
    });
  });
  // The caller's cancellation (an abort) wakes the wait; as in proc::run,
  // it is not passed into the timer itself (Boost 1.81's co_spawn).
  asio::cancellation_state caller = co_await asio::this_coro::cancellation_state;
  asio::cancellation_slot slot = caller.slot();
  if (slot.is_connected()) {
    slot.assign([waiter](asio::cancellation_type) {
      asio::post(waiter->timer.get_executor(), [waiter] {
        waiter->cancelled = true;
        waiter->timer.cancel();
      });
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!waiter->answer && !waiter->cancelled && std::chrono::steady_clock::now() < deadline) {
    waiter->timer.expires_at(deadline);
    co_await waiter->timer.async_wait(asio::bind_cancellation_slot(
        asio::cancellation_slot(), asio::as_tuple(asio::use_awaitable)));
  }
  if (slot.is_connected()) slot.clear();
  if (waiter->answer) co_return std::move(*waiter->answer);
  if (waiter->cancelled) co_return fail(ErrorCode::cancelled, method + " was cancelled");
  co_return fail(ErrorCode::timeout,
                 fmt::format("the editor did not answer {} within {} s", method,
                             std::chrono::duration_cast<std::chrono::seconds>(timeout).count()));
}

void EditorLink::send(const std::string& method, json params) {
  params["sessionId"] = session_id();
  channel_->request(method, std::move(params), [](const Result<json>&) {});
}

void EditorLink::update(json update) {
  channel_->notify("session/update",
                   json{{"sessionId", session_id()}, {"update", std::move(update)}});
}

void EditorLink::after_announced(const std::string& call_id, std::function<void()> action) {
  std::vector<std::function<void()>> run_now;
  {
    std::lock_guard lock(mutex_);
    if (std::find(announced_.begin(), announced_.end(), call_id) != announced_.end()) {
      run_now.push_back(std::move(action));
    } else {
      // A call the bridge never reports must not keep its actions (a
      // terminal to release) forever: past the bound, one waiting call's
      // actions run unannounced instead.
      if (!waiting_.contains(call_id) && waiting_.size() >= max_waiting_calls) {
        auto oldest = waiting_.begin();
        run_now = std::move(oldest->second);
        waiting_.erase(oldest);
      }
      waiting_[call_id].push_back(std::move(action));
    }
  }
  for (auto& run : run_now) run();
}

void EditorLink::announced(const std::string& call_id) {
  std::vector<std::function<void()>> run_now;
  {
    std::lock_guard lock(mutex_);
    announced_.push_back(call_id);
    if (announced_.size() > remembered_calls) announced_.pop_front();
    if (auto found = waiting_.find(call_id); found != waiting_.end()) {
      run_now = std::move(found->second);
      waiting_.erase(found);
    }
  }
  for (auto& run : run_now) run();
}

}  // namespace ava::acp
