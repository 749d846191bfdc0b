#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ava::oauth {

// A sign-in redirect that lands on another machine: when the person's
// browser runs where this process does not (a backend reached through an
// SSH tunnel), the client on the browser's machine runs the loopback
// listener there, and hands each callback's query to this process through
// its authenticated connection (deliver). A sign-in whose OAuthConfig names
// a relay sends the browser to the relay's redirect URI and waits here for
// the query carrying its state. Thread-safe.
class RedirectRelay {
 public:
  explicit RedirectRelay(std::string redirect_uri) : redirect_uri_(std::move(redirect_uri)) {}

  const std::string& redirect_uri() const { return redirect_uri_; }

  // Hands a callback query ("code=...&state=...&iss=...") to the sign-in
  // waiting for its state; false when none is (a stale or forged one).
  bool deliver(std::string_view query);

  // A sign-in waiting for its state (the relayed listener's side).
  struct Waiter {
    virtual ~Waiter() = default;
    virtual const std::string& state() const = 0;
    // Called from any thread; the waiter takes it over to its own.
    virtual void take(std::string query) = 0;
  };
  void add(std::shared_ptr<Waiter> waiter);
  void remove(const Waiter* waiter);

 private:
  std::string redirect_uri_;
  std::mutex mutex_;
  std::vector<std::weak_ptr<Waiter>> waiters_;
};

}  // namespace ava::oauth
