// ava_sse_fanout: delivery latency of one conversation's events to many SSE
// subscribers of a running ava-backend.
//
//   ava_sse_fanout PORT TOKEN CONVERSATION_ID [SUBSCRIBERS] [ROUNDS] [INTERVAL_MS]
//
// Opens SUBSCRIBERS event streams (from the conversation's current end),
// then sends ROUNDS follow-ups and records, for every subscriber, when the
// `input` event of each round arrived. Latency = arrival - the moment the
// POST was sent. Prints p50/p90/p99/max over all subscriber x round pairs.
//
// The client shares the machine with the server, so it is kept lean: two
// threads, each with a level-triggered epoll over its half of the streams,
// one recv per readiness and no locks or allocation on the read path.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::uint16_t port = 0;
  std::string token;
  std::string conversation;
};

struct Arrival {
  long seq;
  Clock::time_point at;
};

struct Subscriber {
  int fd = -1;
  std::atomic<bool> started{false};  // the stream's `retry:` line arrived
  std::string pending;               // bytes of an incomplete frame
  std::vector<Arrival> arrivals;
};

std::string request(const Options& options, const std::string& method, const std::string& target,
                    const std::string& body) {
  std::string head = method + " " + target +
                     " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(options.port) +
                     "\r\nAuthorization: Bearer " + options.token + "\r\n";
  if (!body.empty()) {
    head +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return head + "\r\n" + body;
}

int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A blocking POST on its own connection; returns the response body.
std::string post(const Options& options, const std::string& target, const std::string& body) {
  const int fd = connect_loopback(options.port);
  if (fd < 0 || !send_all(fd, request(options, "POST", target, body))) return "";
  std::string response;
  std::array<char, 4096> buffer{};
  while (response.find("\r\n\r\n") == std::string::npos ||
         response.find('}') == std::string::npos) {
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    response.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  const auto start = response.find("\r\n\r\n");
  return start == std::string::npos ? "" : response.substr(start + 4);
}

long seq_of(std::string_view body) {
  const auto at = body.find("\"seq\":");
  return at == std::string_view::npos ? -1 : std::atol(body.data() + at + 6);
}

// Takes the complete frames out of `bytes` (with the subscriber's pending
// part in front) and records when each `input` event arrived.
void take_frames(Subscriber& subscriber, std::string_view bytes, Clock::time_point now) {
  std::string_view text = bytes;
  if (!subscriber.pending.empty()) {
    subscriber.pending.append(bytes);
    text = subscriber.pending;
  }
  if (!subscriber.started.load(std::memory_order_relaxed) &&
      text.find("retry:") != std::string_view::npos)
    subscriber.started.store(true, std::memory_order_relaxed);
  std::size_t end = 0;
  while ((end = text.find("\n\n")) != std::string_view::npos) {
    const std::string_view frame = text.substr(0, end);
    text.remove_prefix(end + 2);
    if (!frame.starts_with("event: input") &&
        frame.find("\nevent: input\n") == std::string_view::npos)
      continue;
    const auto id = frame.find("id: ");
    if (id != std::string_view::npos)
      subscriber.arrivals.push_back({std::atol(frame.data() + id + 4), now});
  }
  subscriber.pending.assign(text);
}

// Reads the given subscribers' streams until `stop`.
void read_streams(std::vector<Subscriber>& subscribers, std::size_t first, std::size_t last,
                  const std::atomic<bool>& stop) {
  const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
  for (std::size_t i = first; i < last; ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, subscribers[i].fd, &event);
  }
  std::array<epoll_event, 256> ready{};
  std::array<char, 16384> buffer{};
  while (!stop.load(std::memory_order_relaxed)) {
    const int count = ::epoll_wait(epoll, ready.data(), static_cast<int>(ready.size()), 100);
    for (int k = 0; k < count; ++k) {
      Subscriber& subscriber = subscribers[ready[static_cast<std::size_t>(k)].data.u64];
      const ssize_t n = ::recv(subscriber.fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n <= 0) {
        if (n == 0) ::epoll_ctl(epoll, EPOLL_CTL_DEL, subscriber.fd, nullptr);
        continue;
      }
      take_frames(subscriber, {buffer.data(), static_cast<std::size_t>(n)}, Clock::now());
    }
  }
  ::close(epoll);
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

  Options options;
  options.port = static_cast<std::uint16_t>(std::atoi(argv[1]));
  options.token = argv[2];
  options.conversation = argv[3];
  const int count = argc > 4 ? std::atoi(argv[4]) : 1000;
  const int rounds = argc > 5 ? std::atoi(argv[5]) : 50;
  const int interval_ms = argc > 6 ? std::atoi(argv[6]) : 50;
  const std::string input_target = "/api/conversations/" + options.conversation + "/input";

  // Start every stream after the conversation's current end.
  const long after = seq_of(post(options, input_target, R"({"text":"warm-up"})"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<Subscriber> subscribers(static_cast<std::size_t>(count));
  int failed = 0;
  const std::string stream_request = request(
      options, "GET",
      "/api/conversations/" + options.conversation + "/events?after=" + std::to_string(after), "");
  for (auto& subscriber : subscribers) {
    subscriber.arrivals.reserve(static_cast<std::size_t>(rounds) + 8);
    subscriber.fd = connect_loopback(options.port);
    if (subscriber.fd < 0 || !send_all(subscriber.fd, stream_request)) ++failed;
  }
  std::atomic<bool> stop{false};
  const std::size_t half = subscribers.size() / 2;
  std::thread first([&] { read_streams(subscribers, 0, half, stop); });
  std::thread second([&] { read_streams(subscribers, half, subscribers.size(), stop); });
  const auto connect_deadline = Clock::now() + std::chrono::seconds(30);
  auto started = [&] {
    return std::count_if(subscribers.begin(), subscribers.end(),
                         [](const Subscriber& s) { return s.started.load(); });
  };
  while (started() + failed < count && Clock::now() < connect_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::printf("subscribers connected: %ld of %d (%d failed)\n", static_cast<long>(started()), count,
              failed);
  std::fflush(stdout);  // the runner times the rounds from this line

  std::vector<std::pair<long, Clock::time_point>> sent;
  for (int round = 0; round < rounds; ++round) {
    const auto t0 = Clock::now();
    const long seq =
        seq_of(post(options, input_target, "{\"text\":\"round " + std::to_string(round) + "\"}"));
    sent.emplace_back(seq, t0);
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  stop = true;
  first.join();
  second.join();

  std::vector<double> latencies_ms;
  std::size_t missing = 0;
  for (const auto& subscriber : subscribers) {
    for (const auto& [seq, t0] : sent) {
      const auto it = std::find_if(subscriber.arrivals.begin(), subscriber.arrivals.end(),
                                   [seq = seq](const Arrival& a) { return a.seq == seq; });
      if (it == subscriber.arrivals.end()) {
        ++missing;
        continue;
      }
      latencies_ms.push_back(std::chrono::duration<double, std::milli>(it->at - t0).count());
    }
    ::close(subscriber.fd);
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto at = [&](double q) {
    if (latencies_ms.empty()) return 0.0;
    return latencies_ms[std::min(
        latencies_ms.size() - 1,
        static_cast<std::size_t>(q * static_cast<double>(latencies_ms.size())))];
  };
  std::printf("deliveries: %zu, missing: %zu\n", latencies_ms.size(), missing);
  std::printf("latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", at(0.5), at(0.9), at(0.99),
              latencies_ms.empty() ? 0.0 : latencies_ms.back());
  return missing == 0 ? 0 : 1;
}
