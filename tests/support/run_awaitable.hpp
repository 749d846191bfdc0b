#pragma once

#include <chrono>
#include <future>
#include <stdexcept>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace ava::test {

// Runs one awaitable to completion on a fresh io_context and returns its
// value; exceptions from the coroutine are rethrown. A bound on the run keeps
// a hung test from hanging the suite.
template <class T>
T run_awaitable(boost::asio::awaitable<T> task,
                std::chrono::seconds bound = std::chrono::seconds(60)) {
  boost::asio::io_context context;
  auto future = boost::asio::co_spawn(context, std::move(task), boost::asio::use_future);
  context.run_for(bound);
  if (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    throw std::runtime_error("awaitable did not finish within the bound");
  }
  return future.get();
}

}  // namespace ava::test
