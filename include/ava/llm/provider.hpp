#pragma once

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/llm/decoder.hpp"
#include "ava/llm/items.hpp"
#include "ava/llm/stream.hpp"

namespace ava::llm {

// One model backend: the HTTP adapters and the mock implement it.
//
// stream() sends one request and calls on_event for each neutral event as it
// arrives, in order, then returns the assembled Response. Provider and
// network failures are *in* the Response (response.error, typed, with any
// usage already billed), so partial output is never lost; the Result fails
// only when the call is cancelled (ErrorCode::cancelled) or cannot be made at
// all (bad configuration).
//
// Cancellation is Asio's per-operation cancellation: bind a cancellation slot
// to the co_spawn / co_await of stream() (for example with
// asio::bind_cancellation_slot) and emit a terminal cancel from another
// coroutine; the stream stops at its next suspension point.
class Provider {
 public:
  virtual ~Provider() = default;
  Provider() = default;
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  virtual boost::asio::awaitable<Result<Response>> stream(const Request& request,
                                                          EventSink on_event) = 0;

  // Releases connections when the agent is replaced or shut down. A later
  // stream() may reconnect.
  virtual void close() {}
};

}  // namespace ava::llm
