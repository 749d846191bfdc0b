// GET /api/analytics: the analytics index (docs/analytics.md) brought up to
// date with the logs' new events, then summarized. The reading and writing
// happen on the index's own thread, never on the server's I/O threads (a first
// update over thousands of logs takes seconds).
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/analytics/index.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

Result<analytics::Filter> filter_of(const httpd::HttpRequest& request) {
  analytics::Filter filter;
  for (const auto& [name, member] : {std::pair{"project", &analytics::Filter::project},
                                     std::pair{"model", &analytics::Filter::model},
                                     std::pair{"provider", &analytics::Filter::provider},
                                     std::pair{"from", &analytics::Filter::from_day},
                                     std::pair{"to", &analytics::Filter::to_day}}) {
    if (auto value = request.query_value(name); value && !value->empty()) {
      filter.*member = std::string(*value);
    }
  }
  for (const auto& day : {filter.from_day, filter.to_day}) {
    if (day && !analytics::is_day(*day)) {
      return fail(ErrorCode::invalid_argument, "from and to are days: YYYY-MM-DD");
    }
  }
  return filter;
}

// On the index's thread.
Result<httpd::HttpResponse> summarize(const ApiContext& context, const analytics::Filter& filter) {
  if (!context.home) return fail(ErrorCode::unavailable, "analytics are not available here");
  auto& index = context.analytics->index;
  if (!index) {
    AVA_TRY(index, analytics::Index::open(*context.home));
  }
  AVA_TRY_VOID(index->update());
  AVA_TRY(auto summarized, index->summary(filter));
  return shaped_response(200, summarized);
}

asio::awaitable<Result<httpd::HttpResponse>> summarize_there(std::shared_ptr<ApiContext> context,
                                                             analytics::Filter filter) {
  co_return summarize(*context, filter);
}

httpd::Handler summary_route(std::shared_ptr<ApiContext> context) {
  return [context](httpd::Exchange& exchange) -> asio::awaitable<void> {
    auto filter = filter_of(exchange.request());
    if (!filter) {
      co_await exchange.respond(respond_to(std::unexpected(std::move(filter).error())));
      co_return;
    }
    auto reply =
        co_await asio::co_spawn(context->analytics->worker,
                                summarize_there(context, std::move(*filter)), asio::use_awaitable);
    co_await exchange.respond(respond_to(std::move(reply)));
  };
}

}  // namespace

void add_analytics_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/analytics", summary_route(context));
}

}  // namespace ava::server
