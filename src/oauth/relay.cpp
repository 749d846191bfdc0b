// Sign-in redirects delivered by a client on the browser's machine.
#include "ava/oauth/relay.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/url_encoding.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;

bool RedirectRelay::deliver(std::string_view query) {
  auto params = base::parse_query(query);
  if (!params) return false;
  const std::string state = param(*params, "state");
  if (state.empty()) return false;
  std::shared_ptr<Waiter> found;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(waiters_, [](const auto& weak) { return weak.expired(); });
    for (const auto& weak : waiters_) {
      auto waiter = weak.lock();
      if (waiter && waiter->state() == state) found = std::move(waiter);
    }
  }
  if (!found) return false;
  found->take(std::string(query));
  return true;
}

void RedirectRelay::add(std::shared_ptr<Waiter> waiter) {
  std::lock_guard lock(mutex_);
  waiters_.push_back(std::move(waiter));
}

void RedirectRelay::remove(const Waiter* waiter) {
  std::lock_guard lock(mutex_);
  std::erase_if(waiters_, [waiter](const auto& weak) {
    auto held = weak.lock();
    return !held || held.get() == waiter;
  });
}

namespace {

// One wait() of a relayed listener: the query arrives from deliver() on
// any thread and is taken over to the listener's executor.
class RelayWaiter final : public RedirectRelay::Waiter,
                          public std::enable_shared_from_this<RelayWaiter> {
 public:
  RelayWaiter(const asio::any_io_executor& executor, std::string state)
      : executor_(executor), wake_(executor), state_(std::move(state)) {}

  const std::string& state() const override { return state_; }

  void take(std::string query) override {
    asio::post(executor_, [self = shared_from_this(), query = std::move(query)]() mutable {
      if (!self->query_) self->query_ = std::move(query);
      self->wake_.cancel();
    });
  }

  void cancel() {
    cancelled_ = true;
    wake_.cancel();
  }

  asio::awaitable<Result<Params>> wait() {
    for (;;) {
      if (query_) co_return base::parse_query(*query_);
      if (cancelled_) co_return fail(ErrorCode::cancelled, "the sign-in was stopped");
      wake_.expires_at(asio::steady_timer::time_point::max());
      co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
  }

 private:
  asio::any_io_executor executor_;
  asio::steady_timer wake_;
  std::string state_;
  std::optional<std::string> query_;
  bool cancelled_ = false;
};

class RelayedListener final : public RedirectListener {
 public:
  RelayedListener(const asio::any_io_executor& executor, std::shared_ptr<RedirectRelay> relay)
      : executor_(executor), relay_(std::move(relay)) {}
  ~RelayedListener() override {
    if (waiter_) relay_->remove(waiter_.get());
  }

  std::string redirect_uri() const override { return relay_->redirect_uri(); }

  asio::awaitable<Result<Params>> wait(std::string state) override {
    waiter_ = std::make_shared<RelayWaiter>(executor_, std::move(state));
    if (cancelled_) waiter_->cancel();
    relay_->add(waiter_);
    auto waiter = waiter_;
    auto params = co_await waiter->wait();
    relay_->remove(waiter.get());
    co_return params;
  }

  void cancel() override {
    cancelled_ = true;
    if (waiter_) waiter_->cancel();
  }

 private:
  asio::any_io_executor executor_;
  std::shared_ptr<RedirectRelay> relay_;
  std::shared_ptr<RelayWaiter> waiter_;
  bool cancelled_ = false;
};

}  // namespace

Result<std::unique_ptr<RedirectListener>> RedirectListener::relayed(
    const asio::any_io_executor& executor, std::shared_ptr<RedirectRelay> relay) {
  if (!relay) return fail(ErrorCode::invalid_argument, "no redirect relay");
  return std::unique_ptr<RedirectListener>(
      std::make_unique<RelayedListener>(executor, std::move(relay)));
}

}  // namespace ava::oauth
