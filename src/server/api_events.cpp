// Event streams: a conversation's durable events (replay from a cursor, then
// the live tail) and the status stream of the present.
#include <algorithm>
#include <charconv>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <nlohmann/json.hpp>

#include "ava/session/follower.hpp"
#include "ava/transport/sse.hpp"
#include "server/api.hpp"
#include "server/subagent_logs.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

constexpr std::chrono::seconds keep_alive_interval{15};
constexpr std::size_t replay_chunk_bytes = std::size_t{256} * 1024;
// How much of the log one replay step reads: memory per replaying
// subscriber stays bounded whatever the length of the history.
constexpr std::size_t replay_read_bytes = std::size_t{256} * 1024;

// The cursor: ?after=N, else Last-Event-ID, else 0 (from the start).
std::optional<std::int64_t> cursor_of(const httpd::HttpRequest& request) {
  std::string_view text = request.header("last-event-id");
  if (auto after = request.query_value("after")) text = *after;
  if (text.empty()) return 0;
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Writes the log's events after `after` (those the feed no longer or never
// held); returns the new cursor, or nullopt when the client is gone.
asio::awaitable<std::optional<std::int64_t>> replay_from_log(httpd::Exchange& exchange,
                                                             const std::filesystem::path& log,
                                                             std::int64_t after) {
  auto follower = session::LogFollower::open(log, static_cast<session::Seq>(after));
  if (!follower) co_return after;
  std::string chunk;
  do {
    auto events = (*follower)->poll(replay_read_bytes);
    if (!events) break;
    for (const auto& event : *events) {
      chunk += event_frame(event);
      after = static_cast<std::int64_t>(event.seq);
      if (chunk.size() >= replay_chunk_bytes) {
        if (!co_await exchange.write_events(chunk)) co_return std::nullopt;
        chunk.clear();
      }
    }
  } while ((*follower)->has_unread());
  if (!chunk.empty() && !co_await exchange.write_events(chunk)) co_return std::nullopt;
  co_return after;
}

// Follows `feed` from `after` until the client goes, the feed closes or the
// client falls behind what the feed holds. `replay` fills gaps before the
// feed's floor, only until the stream has caught up once.
asio::awaitable<void> follow(
    httpd::Exchange& exchange, httpd::EventFeed& feed, std::int64_t after,
    const std::function<asio::awaitable<std::optional<std::int64_t>>(std::int64_t)>& replay) {
  bool caught_up = false;
  int replays = 0;
  // While it waits, the feed writes new frames straight to the socket.
  httpd::EventFeed::Listener listener(co_await asio::this_coro::executor, exchange.socket_handle());
  std::string joined;
  for (;;) {
    auto batch = feed.take(after);
    switch (batch.outcome) {
      case httpd::EventFeed::Outcome::frames: {
        after = batch.frames.back()->seq;
        caught_up = true;
        // Usually one frame: written from the shared copy, without joining.
        std::string_view frames = batch.frames.front()->bytes;
        if (batch.frames.size() > 1) {
          joined.clear();
          for (const auto& frame : batch.frames) joined += frame->bytes;
          frames = joined;
        }
        if (!co_await exchange.write_events(frames)) co_return;
        break;
      }
      case httpd::EventFeed::Outcome::behind: {
        if (caught_up || !replay || ++replays > 3) {
          // Cut: the client reconnects with Last-Event-ID and replays from the log.
          const std::string notice =
              transport::encode_sse_comment("cut: too far behind; reconnect from your cursor");
          co_await exchange.write_events(notice);
          co_return;
        }
        auto next = co_await replay(after);
        if (!next) co_return;
        if (*next == after) {
          // The feed starts later than the log ends: nothing more to replay.
          after = feed.floor();
        } else {
          after = *next;
        }
        break;
      }
      case httpd::EventFeed::Outcome::nothing_yet: {
        caught_up = true;
        auto wake = co_await feed.wait(listener, after, keep_alive_interval);
        after = wake.after;
        if (wake.gone) co_return;
        if (!wake.unsent.empty() && !co_await exchange.write_events(wake.unsent)) co_return;
        if (!wake.woken && !co_await exchange.write_events(transport::encode_sse_comment())) {
          co_return;
        }
        break;
      }
      case httpd::EventFeed::Outcome::closed: co_return;
    }
  }
}

// What a conversation's stream needs: only the log and the feed, so that the
// stream does not keep an unloaded conversation alive.
struct EventSource {
  std::filesystem::path log;
  std::shared_ptr<httpd::EventFeed> feed;
  std::int64_t after = 0;
};

Result<EventSource> event_source(const ApiContext& context, const httpd::HttpRequest& request) {
  auto cursor = cursor_of(request);
  if (!cursor) return fail(ErrorCode::invalid_argument, "the cursor must be a sequence number");
  AVA_TRY(auto live, context.host->open(request.params[0]));
  return EventSource{.log = live->agent->log_path(), .feed = live->events, .after = *cursor};
}

// A subagent's log (sessions/<child>.jsonl.zst), when its session_start
// names this conversation as its parent; opened from the file alone, so a
// child that still runs (owned by its parent's task call) can be followed.
Result<std::unique_ptr<session::LogFollower>> subagent_log(const ApiContext& context,
                                                           const httpd::HttpRequest& request,
                                                           std::vector<session::Event>& first) {
  const std::string& parent = request.params[0];
  const std::string& child = request.params[1];
  if (!plain_session_id(child)) return fail(ErrorCode::not_found, "no such subagent");
  if (!context.registry->conversation(parent)) {
    return fail(ErrorCode::not_found, "no conversation " + parent);
  }
  const auto log = context.home->root() / "sessions" / (child + ".jsonl.zst");
  AVA_TRY(auto follower, session::LogFollower::open(log, 0));
  AVA_TRY(first, follower->poll(replay_read_bytes));
  const auto* start =
      first.empty() ? nullptr : std::get_if<session::SessionStarted>(&first.front().body);
  if (!start || start->parent_session_id != parent) {
    return fail(ErrorCode::not_found, "no subagent " + child + " of conversation " + parent);
  }
  return follower;
}

// Replays the subagent's log after the cursor, then tails it (a short poll:
// a subagent's log grows only while its one turn runs).
asio::awaitable<void> follow_subagent(httpd::Exchange& exchange, session::LogFollower& follower,
                                      std::vector<session::Event> events, std::int64_t after) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  auto quiet = std::chrono::milliseconds(0);
  for (;;) {
    std::string chunk;
    for (const auto& event : events) {
      if (static_cast<std::int64_t>(event.seq) <= after) continue;
      chunk += event_frame(event);
      after = static_cast<std::int64_t>(event.seq);
    }
    if (!chunk.empty()) {
      if (!co_await exchange.write_events(chunk)) co_return;
      quiet = {};
    } else if (quiet >= keep_alive_interval) {
      if (!co_await exchange.write_events(transport::encode_sse_comment())) co_return;
      quiet = {};
    }
    if (!follower.has_unread()) {
      timer.expires_after(std::chrono::milliseconds(250));
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      quiet += std::chrono::milliseconds(250);
    }
    auto next = follower.poll(replay_read_bytes);
    if (!next) co_return;
    events = std::move(*next);
  }
}

// The status stream's first message: every loaded conversation's driver.
std::string snapshot_data(const ApiContext& context) {
  protocol::SnapshotMessage snapshot;
  for (const auto& live : context.host->loaded())
    snapshot.conversations.push_back(loaded_driver(*live));
  return protocol::to_json(snapshot).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void add_event_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/conversations/{id}/events",
             [context](httpd::Exchange& exchange) -> asio::awaitable<void> {
               auto source = event_source(*context, exchange.request());
               if (!source) {
                 httpd::HttpResponse reply = respond_to(std::unexpected(std::move(source).error()));
                 co_await exchange.respond(std::move(reply));
                 co_return;
               }
               if (!co_await exchange.begin_events()) co_return;
               if (!co_await exchange.write_events("retry: 1000\n\n")) co_return;
               co_await follow(exchange, *source->feed, source->after, [&](std::int64_t after) {
                 return replay_from_log(exchange, source->log, after);
               });
             });

  router.add(
      "GET", "/api/conversations/{id}/subagents/{child}/events",
      [context](httpd::Exchange& exchange) -> asio::awaitable<void> {
        const auto cursor = cursor_of(exchange.request());
        std::vector<session::Event> first;
        Result<std::unique_ptr<session::LogFollower>> follower =
            cursor ? subagent_log(*context, exchange.request(), first)
                   : fail(ErrorCode::invalid_argument, "the cursor must be a sequence number");
        if (!follower) {
          httpd::HttpResponse reply = respond_to(std::unexpected(std::move(follower).error()));
          co_await exchange.respond(std::move(reply));
          co_return;
        }
        if (!co_await exchange.begin_events()) co_return;
        if (!co_await exchange.write_events("retry: 1000\n\n")) co_return;
        co_await follow_subagent(exchange, **follower, std::move(first), *cursor);
      });

  router.add(
      "GET", "/api/status/events", [context](httpd::Exchange& exchange) -> asio::awaitable<void> {
        // The present first: the state of every loaded conversation.
        httpd::EventFeed& feed = context->status->feed();
        const std::int64_t start = feed.last_seq();
        const std::string snapshot = snapshot_data(*context);
        const std::string id = std::to_string(start);
        auto frame = transport::encode_sse({.event = "snapshot", .data = snapshot, .id = id});
        if (!co_await exchange.begin_events()) co_return;
        if (!co_await exchange.write_events("retry: 1000\n\n" + frame.value_or(""))) co_return;
        co_await follow(exchange, feed, start, nullptr);
      });
}

}  // namespace ava::server
