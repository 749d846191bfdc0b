// /api/projects/{id}/files...: a project's files as people browse them
// (docs/api.md, "Files"): folders, previews, raw bytes, quick open and a
// stream of changes. Paths are relative to the project and opened beneath
// its folder (files/paths.hpp).
#include <charconv>

#include <nlohmann/json.hpp>

#include <boost/asio/this_coro.hpp>

#include "ava/base/url_encoding.hpp"
#include "ava/files/listing.hpp"
#include "ava/files/preview.hpp"
#include "ava/files/search.hpp"
#include "ava/files/watcher.hpp"
#include "ava/transport/sse.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

constexpr std::chrono::seconds watch_keep_alive{5};

Result<files::ProjectRoot> project_root(const ApiContext& context,
                                        const httpd::HttpRequest& request) {
  auto project = context.registry->project(request.params[0]);
  if (!project) return fail(ErrorCode::not_found, "no such project");
  return files::ProjectRoot::open(project->path);
}

Result<std::string> path_of(const httpd::HttpRequest& request, bool required) {
  const auto path = request.query_value("path");
  if (!path && required) return fail(ErrorCode::invalid_argument, "say which file: ?path=");
  return files::clean_relative(path.value_or(""));
}

Result<std::size_t> limit_of(const httpd::HttpRequest& request) {
  const auto text = request.query_value("limit");
  if (!text) return std::size_t{50};
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 1 ||
      value > files::max_search_matches) {
    return fail(ErrorCode::invalid_argument, "limit must be a whole number between 1 and 200");
  }
  return value;
}

Result<httpd::HttpResponse> preview(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(const auto root, project_root(context, request));
  AVA_TRY(const auto path, path_of(request, true));
  AVA_TRY(const auto shown, files::preview(root, path));
  return shaped_response(200, shown);
}

// The bytes, for an <img>, a PDF frame or a download. Served from the UI's
// origin, so nothing in them may run there: images and other files come
// in a CSP sandbox (an opaque origin), other files only as attachments.
httpd::HttpResponse raw_response(files::RawFile raw, std::string_view path) {
  httpd::HttpResponse response{.status = 200, .content_type = raw.media_type};
  response.headers.emplace_back("ETag", "\"" + raw.version + "\"");
  if (raw.kind == "pdf") {
    // Chromium's PDF viewer does not open in a sandbox; it runs none of
    // the page's script, and only the UI's own pages may frame it.
    response.headers.emplace_back("Content-Security-Policy",
                                  "default-src 'none'; frame-ancestors 'self'");
    response.headers.emplace_back("X-Frame-Options", "SAMEORIGIN");
  } else {
    response.headers.emplace_back("Content-Security-Policy",
                                  "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  }
  if (raw.kind != "image" && raw.kind != "pdf") {
    const auto slash = path.rfind('/');
    const auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    response.headers.emplace_back("Content-Disposition",
                                  "attachment; filename*=UTF-8''" + base::percent_encode(name));
  }
  response.body = std::move(raw.bytes);
  return response;
}

Result<httpd::HttpResponse> raw(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(const auto root, project_root(context, request));
  AVA_TRY(const auto path, path_of(request, true));
  AVA_TRY(auto bytes, files::read_raw(root, path));
  const auto wanted = request.query_value("version");
  if (wanted && *wanted != bytes.version) {
    return fail(ErrorCode::conflict, path + " changed since its preview: load the preview again");
  }
  return raw_response(std::move(bytes), path);
}

// The coroutine routes answer a failure before they start.
asio::awaitable<void> refuse(httpd::Exchange& exchange, Error error) {
  httpd::HttpResponse reply = respond_to(std::unexpected(std::move(error)));
  co_await exchange.respond(std::move(reply));
}

asio::awaitable<void> list(std::shared_ptr<ApiContext> context, httpd::Exchange& exchange) {
  auto root = project_root(*context, exchange.request());
  auto path = path_of(exchange.request(), false);
  if (!root) {
    co_await refuse(exchange, std::move(root).error());
    co_return;
  }
  if (!path) {
    co_await refuse(exchange, std::move(path).error());
    co_return;
  }
  auto listing = co_await files::list_folder(*root, *path);
  if (!listing) {
    co_await refuse(exchange, std::move(listing).error());
    co_return;
  }
  co_await exchange.respond(shaped_response(200, *listing));
}

asio::awaitable<void> search(std::shared_ptr<ApiContext> context, httpd::Exchange& exchange) {
  auto root = project_root(*context, exchange.request());
  auto limit = limit_of(exchange.request());
  if (!root) {
    co_await refuse(exchange, std::move(root).error());
    co_return;
  }
  if (!limit) {
    co_await refuse(exchange, std::move(limit).error());
    co_return;
  }
  const std::string query(exchange.request().query_value("q").value_or(""));
  auto found = co_await files::search(*root, query, *limit);
  if (!found) {
    co_await refuse(exchange, std::move(found).error());
    co_return;
  }
  co_await exchange.respond(shaped_response(200, *found));
}

std::string event_frame(std::string_view event, const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return transport::encode_sse({.event = event, .data = text}).value_or("");
}

// A place among the watches the server runs (each holds an inotify
// instance, of which a user has few): freed when the stream ends.
class WatchSlot {
 public:
  explicit WatchSlot(std::shared_ptr<std::atomic<int>> count) : count_(std::move(count)) {
    taken_ = count_->fetch_add(1) < ApiContext::max_file_watches;
  }
  ~WatchSlot() { count_->fetch_sub(1); }
  WatchSlot(const WatchSlot&) = delete;
  WatchSlot& operator=(const WatchSlot&) = delete;
  bool taken() const { return taken_; }

 private:
  std::shared_ptr<std::atomic<int>> count_;
  bool taken_ = false;
};

Error too_many_watches() {
  return Error{ErrorCode::unavailable,
               "too many file watches are open on this server; close a file tree"};
}

std::string ready_frame(const files::Watcher& watcher) {
  const protocol::FileWatchReady ready{
      .folders = static_cast<std::int64_t>(watcher.folders_watched()),
      .incomplete = watcher.incomplete()};
  return "retry: 2000\n\n" + event_frame("ready", protocol::to_json(ready));
}

std::string changes_frame(const protocol::FileChanges& changes) {
  if (changes.dirs.empty() && !changes.overflow) return transport::encode_sse_comment();
  return event_frame("changes", protocol::to_json(changes));
}

asio::awaitable<void> watch(std::shared_ptr<ApiContext> context, httpd::Exchange& exchange) {
  auto root = project_root(*context, exchange.request());
  if (!root) {
    co_await refuse(exchange, std::move(root).error());
    co_return;
  }
  WatchSlot slot(context->file_watches);
  if (!slot.taken()) {
    co_await refuse(exchange, too_many_watches());
    co_return;
  }
  auto watcher = co_await files::Watcher::start(std::move(*root));
  if (!watcher) {
    co_await refuse(exchange, std::move(watcher).error());
    co_return;
  }
  const std::string first = ready_frame(**watcher);
  if (!co_await exchange.begin_events()) co_return;
  if (!co_await exchange.write_events(first)) co_return;
  for (;;) {
    auto changes = co_await (*watcher)->next(watch_keep_alive);
    if (!changes) co_return;  // the watch failed: the client reconnects and lists again
    const std::string frame = changes_frame(*changes);
    // Also how a client that went is noticed: the next write fails.
    if (!co_await exchange.write_events(frame)) co_return;
  }
}

template <auto Route>
httpd::Handler coroutine(const std::shared_ptr<ApiContext>& context) {
  return [context](httpd::Exchange& exchange) { return Route(context, exchange); };
}

}  // namespace

void add_file_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/projects/{id}/files", coroutine<list>(context));
  router.add("GET", "/api/projects/{id}/files/search", coroutine<search>(context));
  router.add("GET", "/api/projects/{id}/files/events", coroutine<watch>(context));
  router.add("GET", "/api/projects/{id}/files/preview", answer(with(context, preview)));
  router.add("GET", "/api/projects/{id}/files/raw", answer(with(context, raw)));
}

}  // namespace ava::server
