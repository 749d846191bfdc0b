// The HTTP server's parts in isolation: routing, the fence, request targets,
// static files and the event feed. The whole server is tested black-box in
// tests/app/backend_test.py.
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <fstream>
#include <functional>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch.hpp>

#include "ava/httpd/event_feed.hpp"
#include "ava/httpd/http_server.hpp"
#include "ava/httpd/login_gate.hpp"
#include "ava/httpd/static_files.hpp"
#include "httpd/request_target.hpp"
#include "send_paths.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace asio = boost::asio;

namespace {

httpd::HttpRequest request_to(std::string method, std::string target) {
  httpd::HttpRequest request;
  request.method = std::move(method);
  auto parsed = httpd::parse_request_target(target);
  REQUIRE(parsed);
  request.target = std::move(target);
  request.path = parsed->path;
  request.segments = parsed->segments;
  request.query = parsed->query;
  request.headers["host"] = "127.0.0.1:4000";
  return request;
}

httpd::Handler named(std::string name, std::string& called) {
  return [name, &called](httpd::Exchange&) -> asio::awaitable<void> {
    called = name;
    co_return;
  };
}

}  // namespace

TEST_CASE("the router matches placeholders, tells 404 from 405 and keeps /api/ out of the fallback",
          "[httpd][http]") {
  httpd::Router router;
  std::string called;
  router.add("GET", "/api/conversations/{id}", named("get", called));
  router.add("POST", "/api/conversations/{id}/input", named("input", called));
  router.set_fallback(named("files", called));

  auto input = request_to("POST", "/api/conversations/abc/input");
  auto matched = router.match(input);
  REQUIRE(std::holds_alternative<const httpd::Handler*>(matched));
  CHECK(input.params == std::vector<std::string>{"abc"});

  auto wrong_method = request_to("DELETE", "/api/conversations/abc");
  auto refused = router.match(wrong_method);
  REQUIRE(std::holds_alternative<httpd::HttpResponse>(refused));
  CHECK(std::get<httpd::HttpResponse>(refused).status == 405);

  auto empty_param = request_to("GET", "/api/conversations/");
  CHECK(std::get<httpd::HttpResponse>(router.match(empty_param)).status == 404);
  auto unknown_api = request_to("GET", "/api/unknown");
  CHECK(std::get<httpd::HttpResponse>(router.match(unknown_api)).status == 404);
  auto page = request_to("GET", "/settings/general");
  CHECK(std::holds_alternative<const httpd::Handler*>(router.match(page)));
}

TEST_CASE("the fence checks Host, Origin and the bearer token", "[httpd][http][security]") {
  httpd::Fence fence{.port = 4000, .token = std::string(64, 'a')};
  auto request = request_to("GET", "/api/health");
  request.headers["authorization"] = "Bearer " + std::string(64, 'a');
  CHECK_FALSE(fence.check(request));
  request.headers["host"] = "LOCALHOST:4000";
  CHECK_FALSE(fence.check(request));
  request.headers["origin"] = "http://localhost:4000";
  CHECK_FALSE(fence.check(request));

  auto status_of = [&](auto mutate) {
    auto copy = request;
    mutate(copy);
    auto refusal = fence.check(copy);
    return refusal ? refusal->status : 0;
  };
  CHECK(status_of([](auto& r) { r.headers["host"] = "evil.example:4000"; }) == 403);
  CHECK(status_of([](auto& r) { r.headers["host"] = "127.0.0.1:4001"; }) == 403);
  for (const char* bad : {"127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", "127.0.0.1:4000x",
                          "127.0.0.1.evil:4000", "localhost", "[::1]:-1"}) {
    CAPTURE(bad);
    CHECK(status_of([&](auto& r) { r.headers["host"] = bad; }) == 403);
  }
  CHECK(status_of([](auto& r) { r.headers.erase("host"); }) == 403);
  CHECK(status_of([](auto& r) { r.headers["origin"] = "http://evil.example"; }) == 403);
  CHECK(status_of([](auto& r) { r.headers["origin"] = "null"; }) == 403);
  CHECK(status_of([](auto& r) { r.headers.erase("authorization"); }) == 401);
  CHECK(status_of([](auto& r) { r.headers["authorization"] = "Bearer " + std::string(64, 'b'); }) ==
        401);
  CHECK(status_of([](auto& r) { r.headers["authorization"] = "Bearer " + std::string(63, 'a'); }) ==
        401);
  CHECK(status_of([](auto& r) { r.headers["authorization"] = "Bearer " + std::string(65, 'a'); }) ==
        401);

  // Not only /api/: the web UI's files need the secret too.
  auto page = request_to("GET", "/index.html");
  CHECK(fence.check(page)->status == 401);
  CHECK(fence.check(page)->content_type.starts_with("text/html"));
}

TEST_CASE("without a token or cookie only the login routes pass the fence",
          "[httpd][http][security]") {
  auto logins = std::make_shared<httpd::LoginGate>();
  logins->set_port(4000);
  httpd::Fence serve{.port = 4000, .logins = logins};  // --serve: no token
  CHECK(serve.check(request_to("GET", "/api/health"))->status == 401);
  CHECK(serve.check(request_to("GET", "/"))->status == 401);
  CHECK(serve.check(request_to("GET", "/assets/app.js"))->status == 401);
  CHECK_FALSE(serve.check(request_to("GET", "/?login=abc")));
  auto login = request_to("POST", "/api/login");
  login.headers["content-type"] = "application/json";
  login.body = R"({"code":"abc"})";
  CHECK_FALSE(serve.check(login));
  // Login elsewhere than `/` is an ordinary request.
  CHECK(serve.check(request_to("GET", "/x?login=abc"))->status == 401);

  auto code = logins->issue_code();
  REQUIRE(code);
  auto session = logins->redeem(*code);
  REQUIRE(session);
  CHECK_FALSE(logins->redeem(*code));  // one time only
  CHECK_FALSE(logins->redeem("not-a-code"));
  auto with_cookie = request_to("GET", "/api/health");
  with_cookie.headers["cookie"] = "theme=dark; ava_4000=" + *session + "; other=1";
  CHECK_FALSE(serve.check(with_cookie));
  with_cookie.headers["cookie"] = "ava_4001=" + *session;  // another server's cookie
  CHECK(serve.check(with_cookie)->status == 401);
  with_cookie.headers["cookie"] = "ava_4000=" + std::string(64, '0');
  CHECK(serve.check(with_cookie)->status == 401);
  CHECK(logins->set_cookie(*session).find("HttpOnly; SameSite=Strict") != std::string::npos);
  CHECK(logins->login_url(*code) == "http://127.0.0.1:4000/?login=" + *code);

  // A browser through a tunnel: its port passes only once registered.
  auto tunnelled = request_to("GET", "/api/health");
  tunnelled.headers["host"] = "127.0.0.1:5123";
  tunnelled.headers["origin"] = "http://127.0.0.1:5123";
  tunnelled.headers["cookie"] = "ava_4000=" + *session;
  CHECK(serve.check(tunnelled)->status == 403);
  logins->add_tunnel_port(5123);
  CHECK_FALSE(serve.check(tunnelled));
  for (std::uint16_t port = 6000; port < 6000 + httpd::LoginGate::max_tunnel_ports; ++port) {
    logins->add_tunnel_port(port);
  }
  CHECK(serve.check(tunnelled)->status == 403);  // the oldest went
}

TEST_CASE("the fence refuses cross-site requests and bodies that are not exactly JSON",
          "[httpd][http][security]") {
  httpd::Fence fence{.port = 4000, .token = std::string(64, 'a')};
  auto post = request_to("POST", "/api/projects");
  post.headers["authorization"] = "Bearer " + std::string(64, 'a');
  post.headers["content-type"] = "application/json";
  post.body = "{}";
  CHECK_FALSE(fence.check(post));
  auto status_of = [&](auto mutate) {
    auto copy = post;
    mutate(copy);
    auto refusal = fence.check(copy);
    return refusal ? refusal->status : 0;
  };
  CHECK(status_of([](auto& r) { r.headers["content-type"] = "application/json; charset=UTF-8"; }) ==
        0);
  CHECK(status_of([](auto& r) { r.headers["content-type"] = "text/plain;x=application/json"; }) ==
        415);
  CHECK(status_of([](auto& r) { r.headers["content-type"] = "application/json;x=1"; }) == 415);
  CHECK(status_of([](auto& r) {
          r.headers["content-type"] = "application/x-www-form-urlencoded";
        }) == 415);
  CHECK(status_of([](auto& r) { r.headers.erase("content-type"); }) == 415);
  CHECK(status_of([](auto& r) {
          r.headers.erase("content-type");
          r.body.clear();
        }) == 0);
  CHECK(status_of([](auto& r) { r.headers["sec-fetch-site"] = "cross-site"; }) == 403);
  CHECK(status_of([](auto& r) { r.headers["sec-fetch-site"] = "same-site"; }) == 403);
  CHECK(status_of([](auto& r) { r.headers["sec-fetch-site"] = "same-origin"; }) == 0);
  CHECK(status_of([](auto& r) { r.headers["sec-fetch-site"] = "none"; }) == 0);
}

TEST_CASE("request targets are origin-form only and decoded once", "[httpd][http][security]") {
  auto parsed = httpd::parse_request_target("/api/conversations/a%20b/events?after=3&x=a+b%2B");
  REQUIRE(parsed);
  CHECK(parsed->segments == std::vector<std::string>{"api", "conversations", "a b", "events"});
  CHECK(parsed->path == "/api/conversations/a b/events");
  CHECK(parsed->query.at("after") == "3");
  CHECK(parsed->query.at("x") == "a b+");
  CHECK(httpd::parse_request_target("/")->segments.empty());
  CHECK(httpd::parse_request_target("/a/")->segments == std::vector<std::string>{"a", ""});
  CHECK(httpd::parse_request_target("//etc/passwd")->segments ==
        std::vector<std::string>{"", "etc", "passwd"});
  // Not origin-form: the first character is not dropped, it is refused.
  for (const char* target :
       {"xapi/settings", "api/settings", "", "*", "http://127.0.0.1/api/health", "127.0.0.1:80"}) {
    INFO(target);
    CHECK_FALSE(httpd::parse_request_target(target));
  }
  // A segment that decodes to a separator or NUL, and broken escapes.
  for (const char* target :
       {"/%2Fproc%2Fself%2Fenviron", "/a%5Cb", "/a%00", "/bad%2", "/bad%zz", "/a?x=%00", "/a b"}) {
    INFO(target);
    CHECK_FALSE(httpd::parse_request_target(target));
  }
}

TEST_CASE("the router and the fence read the decoded path", "[httpd][http][security]") {
  httpd::Router router;
  std::string called;
  router.add("GET", "/api/settings", named("settings", called));
  router.set_fallback(named("files", called));
  // An encoded letter is the same path to both: the fence sees /api/ too.
  auto encoded = request_to("GET", "/%61pi/settings");
  CHECK(std::holds_alternative<const httpd::Handler*>(router.match(encoded)));
  httpd::Fence fence{.port = 4000, .token = std::string(64, 'a')};
  CHECK(fence.check(encoded)->status == 401);
  CHECK(httpd::is_api_request(encoded));
}

TEST_CASE("static files stay inside the web root", "[httpd][http][security]") {
  ava::test::TempDir tmp;
  const auto root = tmp.path() / "web";
  std::filesystem::create_directories(root / "assets");
  std::ofstream(root / "index.html") << "<html>";
  std::ofstream(root / "assets" / "app.js") << "js";
  std::ofstream(root / "assets" / "notes.bin") << "bin";
  std::ofstream(tmp.path() / "secret.html") << "secret";
  std::ofstream(root / ".hidden.js") << "hidden";
  std::filesystem::create_symlink(tmp.path() / "secret.html", root / "assets" / "link.html");
  std::filesystem::create_directory_symlink(tmp.path(), root / "up");
  const auto canonical_root = std::filesystem::canonical(root);
  using Segments = std::vector<std::string>;
  auto resolved = [&](const Segments& segments) -> std::string {
    auto file = httpd::resolve_static_file(canonical_root, segments);
    return file ? file->lexically_relative(canonical_root).string() : "refused";
  };
  CHECK(resolved({}) == "index.html");
  CHECK(resolved({"assets", "app.js"}) == "assets/app.js");
  CHECK(resolved({"settings", "general"}) == "index.html");  // a client-side route
  CHECK(resolved({"assets", "missing.js"}) == "refused");
  CHECK(resolved({"assets", "notes.bin"}) == "refused");  // not a bundle type
  CHECK(resolved({"", "etc", "passwd"}) == "refused");
  CHECK(resolved({"", "proc", "self", "environ"}) == "refused");
  CHECK(resolved({"..", "secret.html"}) == "refused");
  CHECK(resolved({".", "index.html"}) == "refused");
  CHECK(resolved({".hidden.js"}) == "refused");
  CHECK(resolved({"assets", "link.html"}) == "refused");  // a symlink out of the root
  CHECK(resolved({"up", "secret.html"}) == "refused");
  CHECK(resolved({"a\\..\\secret.html"}) == "refused");
  CHECK(resolved({std::string("index.html\0x", 12)}) == "refused");
  CHECK(resolved({"/etc/passwd"}) == "refused");
}

TEST_CASE("an event feed hands out frames after a cursor and reports subscribers left behind",
          "[httpd][feed]") {
  asio::io_context io;
  httpd::EventFeed feed(io.get_executor(), /*max_bytes=*/100, /*max_frames=*/4, /*floor=*/0);
  feed.start_after(10);  // 1..10 are in the log
  CHECK(feed.take(3).outcome == httpd::EventFeed::Outcome::behind);
  CHECK(feed.take(10).outcome == httpd::EventFeed::Outcome::nothing_yet);
  for (int seq = 11; seq <= 14; ++seq) feed.publish(seq, "frame" + std::to_string(seq));
  auto batch = feed.take(12);
  REQUIRE(batch.outcome == httpd::EventFeed::Outcome::frames);
  REQUIRE(batch.frames.size() == 2);
  CHECK(batch.frames[0]->seq == 13);
  feed.publish(14, "duplicate");  // not newer: ignored
  CHECK(feed.last_seq() == 14);
  feed.publish(15, std::string(90, 'x'));  // over the byte bound: the oldest go
  CHECK(feed.floor() >= 13);
  CHECK(feed.take(11).outcome == httpd::EventFeed::Outcome::behind);
  CHECK(feed.take(feed.floor()).outcome == httpd::EventFeed::Outcome::frames);
  feed.close();
  CHECK(feed.take(15).outcome == httpd::EventFeed::Outcome::closed);
}

TEST_CASE("an event feed started while frames arrive starts at the first of them",
          "[httpd][feed]") {
  asio::io_context io;
  httpd::EventFeed feed(io.get_executor(), 1000, 10, 0);
  feed.publish(7, "seven");  // arrived between subscribing and reading the log's end
  feed.start_after(7);
  CHECK(feed.floor() == 6);
  CHECK(feed.take(6).frames.size() == 1);
}

TEST_CASE("event feed waiters on many strands are woken by a publish from another thread",
          "[httpd][feed]") {
  asio::io_context io;
  auto feed = std::make_shared<httpd::EventFeed>(io.get_executor(), 1 << 20, 1024, 0);
  constexpr int subscribers = 200;
  std::atomic<int> woken{0};
  for (int i = 0; i < subscribers; ++i) {
    asio::co_spawn(
        asio::make_strand(io),
        [&, feed]() -> asio::awaitable<void> {
          co_await feed->wait(0, std::chrono::seconds(30));
          if (feed->take(0).outcome == httpd::EventFeed::Outcome::frames) ++woken;
        },
        asio::detached);
  }
  std::thread runner([&] { io.run(); });
  while (feed->subscribers_waiting() < subscribers)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto start = std::chrono::steady_clock::now();
  feed->publish(1, "one");
  runner.join();  // every waiter finished
  CHECK(woken == subscribers);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("one event feed listener serves many waits: timeouts say false, publishes true",
          "[httpd][feed]") {
  asio::io_context io;
  httpd::EventFeed feed(io.get_executor(), 1 << 20, 1024, 0);
  std::vector<bool> results;
  asio::co_spawn(
      asio::make_strand(io),
      [&]() -> asio::awaitable<void> {
        httpd::EventFeed::Listener listener(co_await asio::this_coro::executor);
        results.push_back((co_await feed.wait(listener, 0, std::chrono::milliseconds(5))).woken);
        CHECK(feed.subscribers_waiting() == 0);  // a timed-out wait leaves no waiter behind
        for (std::int64_t seq = 1; seq <= 3; ++seq) {
          asio::post(io, [&feed, seq] { feed.publish(seq, "frame"); });
          results.push_back(
              (co_await feed.wait(listener, seq - 1, std::chrono::seconds(30))).woken);
          CHECK(feed.take(seq - 1).frames.size() == 1);
        }
        // Already there: no wait at all.
        results.push_back((co_await feed.wait(listener, 0, std::chrono::seconds(30))).woken);
      },
      asio::detached);
  io.run();
  CHECK(results == std::vector<bool>{false, true, true, true, true});
}

namespace {

template <typename Predicate>
bool eventually(Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("a parked subscriber gets frames written directly and wakes only when one does not fit",
          "[httpd][feed]") {
  const bool io_uring = GENERATE(true, false);
  INFO("io_uring sends allowed: " << io_uring);
  const test::SendPath path(io_uring);
  std::array<int, 2> fds{};
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds.data()) == 0);
  const int server_fd = fds[0];
  int client_fd = fds[1];
  // Small enough that a 4 MiB frame never fits at once, whatever the host's default.
  const int send_buffer = 64 * 1024;
  REQUIRE(::setsockopt(server_fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer) == 0);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  auto feed = std::make_shared<httpd::EventFeed>(io.get_executor(), 1 << 22, 1024, 0);
  std::atomic<int> waits_done{0};
  httpd::EventFeed::Wake first;
  httpd::EventFeed::Wake second;
  asio::co_spawn(
      asio::make_strand(io),
      [&]() -> asio::awaitable<void> {
        httpd::EventFeed::Listener listener(co_await asio::this_coro::executor, server_fd);
        first = co_await feed->wait(listener, 0, std::chrono::seconds(30));
        ++waits_done;
        second = co_await feed->wait(listener, first.after, std::chrono::seconds(30));
        ++waits_done;
      },
      asio::detached);
  std::thread runner([&] { io.run(); });
  // A failed REQUIRE must report, not terminate on a joinable thread.
  struct Stop {
    std::function<void()> run;
    ~Stop() { run(); }
  } stop{[&] {
    work.reset();
    io.stop();
    if (runner.joinable()) runner.join();
    if (client_fd >= 0) ::close(client_fd);
    ::close(server_fd);
  }};

  REQUIRE(eventually([&] { return feed->subscribers_waiting() == 1; }));
  for (int seq = 1; seq <= 3; ++seq) feed->publish(seq, "f" + std::to_string(seq) + ";");
  std::string received;
  REQUIRE(eventually([&] {
    received += test::read_available(client_fd);
    return received == "f1;f2;f3;";
  }));
  // Written in order without waking the subscriber, which still waits.
  CHECK(waits_done == 0);
  CHECK(feed->subscribers_waiting() == 1);

  // Larger than the socket takes at once: the tail comes back to the subscriber.
  const std::string large(4 << 20, 'L');
  feed->publish(4, large);
  REQUIRE(eventually([&] { return waits_done == 1; }));
  CHECK(first.woken);
  CHECK(first.after == 4);
  CHECK_FALSE(first.gone);
  REQUIRE_FALSE(first.unsent.empty());
  const std::string head = test::read_available(client_fd);
  CHECK(head.size() + first.unsent.size() == large.size());
  CHECK(head.find_first_not_of('L') == std::string::npos);

  // A peer that is gone ends the second wait.
  REQUIRE(eventually([&] { return feed->subscribers_waiting() == 1; }));
  ::close(client_fd);
  client_fd = -1;
  feed->publish(5, "f5;");
  REQUIRE(eventually([&] { return waits_done == 2; }));
  CHECK(second.gone);
}

TEST_CASE("many parked subscribers each get every frame of a burst once and in order",
          "[httpd][feed]") {
  const bool io_uring = GENERATE(true, false);
  INFO("io_uring sends allowed: " << io_uring);
  const test::SendPath path(io_uring);
  constexpr int subscribers = 300;  // three fan-out chunks, written by two threads
  constexpr std::int64_t frames = 60;
  std::vector<std::array<int, 2>> pairs(subscribers);
  for (auto& pair : pairs) REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair.data()) == 0);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  auto feed = std::make_shared<httpd::EventFeed>(io.get_executor(), 1 << 22, 4096, 0);
  auto send_all = [](int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return;
      bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
  };
  // Each subscriber follows the feed the way an event stream does: it
  // writes what it takes itself and parks with its socket otherwise.
  for (const auto& pair : pairs) {
    asio::co_spawn(
        asio::make_strand(io),
        [&, fd = pair[0]]() -> asio::awaitable<void> {
          httpd::EventFeed::Listener listener(co_await asio::this_coro::executor, fd);
          std::int64_t after = 0;
          for (;;) {
            auto batch = feed->take(after);
            if (batch.outcome == httpd::EventFeed::Outcome::closed) co_return;
            if (batch.outcome == httpd::EventFeed::Outcome::frames) {
              for (const auto& frame : batch.frames) send_all(fd, frame->bytes);
              after = batch.frames.back()->seq;
              continue;
            }
            auto wake = co_await feed->wait(listener, after, std::chrono::seconds(30));
            if (wake.gone) co_return;
            send_all(fd, wake.unsent);
            after = wake.after;
          }
        },
        asio::detached);
  }
  std::thread first([&] { io.run(); });
  std::thread second([&] { io.run(); });
  struct Stop {
    std::function<void()> run;
    ~Stop() { run(); }
  } stop{[&] {
    feed->close();
    work.reset();
    io.stop();
    if (first.joinable()) first.join();
    if (second.joinable()) second.join();
    for (const auto& pair : pairs) {
      ::close(pair[0]);
      ::close(pair[1]);
    }
  }};

  REQUIRE(eventually([&] { return feed->subscribers_waiting() == subscribers; }));
  std::string expected;
  for (std::int64_t seq = 1; seq <= frames; ++seq) {
    expected += std::to_string(seq) + ";";
    feed->publish(seq, std::to_string(seq) + ";");
    // Bursts of a few frames: some arrive while a round is under way.
    if (seq % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::vector<std::string> received(pairs.size());
  eventually([&] {
    bool all = true;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      received[i] += test::read_available(pairs[i][1]);
      all = all && received[i].size() >= expected.size();
    }
    return all;
  });
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    INFO("subscriber " << i);
    CHECK(received[i] == expected);
  }
}
