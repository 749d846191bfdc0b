#pragma once

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace ava::test {

// Runs an awaitable to completion on a fresh io_context and returns its value
// (servertech-chat's run_coroutine). Fails the test by exception when the
// coroutine throws or does not finish within `limit`.
template <class MakeAwaitable>
auto run_coroutine(MakeAwaitable make, std::chrono::seconds limit = std::chrono::seconds(30)) {
  boost::asio::io_context io;
  using Value = typename decltype(make(io))::value_type;
  std::optional<Value> value;
  std::exception_ptr failure;
  boost::asio::co_spawn(io, make(io), [&](const std::exception_ptr& error, Value result) {
    failure = error;
    if (!error) value.emplace(std::move(result));
  });
  io.run_for(limit);
  if (failure) std::rethrow_exception(failure);
  if (!value) throw std::runtime_error("coroutine did not finish in time");
  return std::move(*value);
}

}  // namespace ava::test
