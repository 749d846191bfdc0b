// ava_sse_fanout: delivery latency of one conversation's events to many SSE
// subscribers of a running ava-backend.
//
//   ava_sse_fanout PORT TOKEN CONVERSATION_ID [SUBSCRIBERS] [ROUNDS] [INTERVAL_MS]
//
// Opens SUBSCRIBERS event streams (from the conversation's current end),
// then sends ROUNDS follow-ups and records, for every subscriber, when the
// `input` event of each round arrived. Latency = arrival - the moment the
// POST was sent. Prints p50/p90/p99/max over all subscriber x round pairs.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Shared {
  std::uint16_t port = 0;
  std::string token;
  std::string conversation;
  std::atomic<int> connected{0};
  std::atomic<int> failed{0};
  std::mutex mutex;
  std::vector<std::map<long, Clock::time_point>> arrivals;  // per subscriber: seq -> time
};

std::string request_head(const Shared& shared, const std::string& method, const std::string& target,
                         const std::string& body) {
  std::string head = method + " " + target +
                     " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(shared.port) +
                     "\r\nAuthorization: Bearer " + shared.token + "\r\n";
  if (!body.empty()) {
    head +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return head + "\r\n" + body;
}

asio::awaitable<void> subscribe(Shared& shared, int index, long after) {
  const auto no_throw = asio::as_tuple(asio::use_awaitable);
  tcp::socket socket(co_await asio::this_coro::executor);
  auto [connect_error] =
      co_await socket.async_connect({asio::ip::make_address("127.0.0.1"), shared.port}, no_throw);
  const std::string request = request_head(
      shared, "GET",
      "/api/conversations/" + shared.conversation + "/events?after=" + std::to_string(after), "");
  auto [write_error, written] = co_await asio::async_write(socket, asio::buffer(request), no_throw);
  if (connect_error || write_error) {
    ++shared.failed;
    co_return;
  }
  std::string pending;
  std::array<char, 16384> buffer{};
  bool counted = false;
  for (;;) {
    auto [error, n] = co_await socket.async_read_some(asio::buffer(buffer), no_throw);
    if (error) co_return;
    const auto now = Clock::now();
    pending.append(buffer.data(), n);
    if (!counted && pending.find("retry:") != std::string::npos) {
      counted = true;
      ++shared.connected;
    }
    std::size_t end = 0;
    while ((end = pending.find("\n\n")) != std::string::npos) {
      const std::string frame = pending.substr(0, end);
      pending.erase(0, end + 2);
      if (frame.find("\nevent: input\n") == std::string::npos &&
          frame.rfind("event: input", 0) != 0)
        continue;
      const auto id = frame.find("id: ");
      if (id == std::string::npos) continue;
      const long seq = std::atol(frame.c_str() + id + 4);
      std::lock_guard lock(shared.mutex);
      shared.arrivals[static_cast<std::size_t>(index)][seq] = now;
    }
  }
}

// A blocking POST on its own socket; returns the body.
std::string post(const Shared& shared, const std::string& target, const std::string& body) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), shared.port});
  const std::string request = request_head(shared, "POST", target, body);
  asio::write(socket, asio::buffer(request));
  std::string response;
  boost::system::error_code error;
  std::array<char, 4096> buffer{};
  while (response.find("\r\n\r\n") == std::string::npos ||
         response.find('}') == std::string::npos) {
    const std::size_t n = socket.read_some(asio::buffer(buffer), error);
    if (error) break;
    response.append(buffer.data(), n);
  }
  const auto start = response.find("\r\n\r\n");
  return start == std::string::npos ? "" : response.substr(start + 4);
}

long seq_of(const std::string& body) {
  const auto at = body.find("\"seq\":");
  return at == std::string::npos ? -1 : std::atol(body.c_str() + at + 6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fputs(
        "usage: ava_sse_fanout PORT TOKEN CONVERSATION [SUBSCRIBERS] [ROUNDS] [INTERVAL_MS]\n",
        stderr);
    return 2;
  }
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);

  Shared shared;
  shared.port = static_cast<std::uint16_t>(std::atoi(argv[1]));
  shared.token = argv[2];
  shared.conversation = argv[3];
  const int subscribers = argc > 4 ? std::atoi(argv[4]) : 1000;
  const int rounds = argc > 5 ? std::atoi(argv[5]) : 50;
  const int interval_ms = argc > 6 ? std::atoi(argv[6]) : 50;
  shared.arrivals.resize(static_cast<std::size_t>(subscribers));

  // Start every stream after the conversation's current end.
  const long after = seq_of(post(shared, "/api/conversations/" + shared.conversation + "/input",
                                 R"({"text":"warm-up"})"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  asio::io_context io(2);
  for (int i = 0; i < subscribers; ++i)
    asio::co_spawn(io, subscribe(shared, i, after), asio::detached);
  std::thread runner([&] { io.run(); });
  std::thread second([&] { io.run(); });
  const auto connect_deadline = Clock::now() + std::chrono::seconds(30);
  while (shared.connected + shared.failed < subscribers && Clock::now() < connect_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::printf("subscribers connected: %d of %d (%d failed)\n", shared.connected.load(), subscribers,
              shared.failed.load());

  std::vector<std::pair<long, Clock::time_point>> sent;
  for (int round = 0; round < rounds; ++round) {
    const auto t0 = Clock::now();
    const long seq = seq_of(post(shared, "/api/conversations/" + shared.conversation + "/input",
                                 "{\"text\":\"round " + std::to_string(round) + "\"}"));
    sent.emplace_back(seq, t0);
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  io.stop();
  runner.join();
  second.join();

  std::vector<double> latencies_ms;
  std::size_t missing = 0;
  for (const auto& arrivals : shared.arrivals) {
    for (const auto& [seq, t0] : sent) {
      auto it = arrivals.find(seq);
      if (it == arrivals.end()) {
        ++missing;
        continue;
      }
      latencies_ms.push_back(std::chrono::duration<double, std::milli>(it->second - t0).count());
    }
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto at = [&](double q) {
    if (latencies_ms.empty()) return 0.0;
    return latencies_ms[std::min(latencies_ms.size() - 1,
                                 static_cast<std::size_t>(q * latencies_ms.size()))];
  };
  std::printf("deliveries: %zu, missing: %zu\n", latencies_ms.size(), missing);
  std::printf("latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", at(0.5), at(0.9), at(0.99),
              latencies_ms.empty() ? 0.0 : latencies_ms.back());
  return missing == 0 ? 0 : 1;
}
