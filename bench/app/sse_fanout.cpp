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
// threads, each reading its half of the streams through an io_uring (one
// multishot recv per stream into a shared pool of buffers, completions
// reaped in batches, so one system call serves many reads), with no locks
// or allocation on the read path.
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
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

// Blocking POSTs over one kept-alive connection, as a browser sends them.
class Poster {
 public:
  explicit Poster(const Options& options) : options_(options) {}
  ~Poster() {
    if (fd_ >= 0) ::close(fd_);
  }
  Poster(const Poster&) = delete;
  Poster& operator=(const Poster&) = delete;

  // The response body, or "" on failure (the next call connects again).
  std::string post(const std::string& target, const std::string& body) {
    if (fd_ < 0) fd_ = connect_loopback(options_.port);
    if (fd_ < 0 || !send_all(fd_, request(options_, "POST", target, body))) return fail();
    std::string response;
    std::array<char, 4096> buffer{};
    std::size_t head_end = std::string::npos;
    std::size_t length = 0;
    for (;;) {
      if (head_end == std::string::npos &&
          (head_end = response.find("\r\n\r\n")) != std::string::npos) {
        const auto field = response.find("Content-Length: ");
        if (field == std::string::npos || field > head_end) return fail();
        length = std::strtoul(response.c_str() + field + 16, nullptr, 10);
      }
      if (head_end != std::string::npos && response.size() >= head_end + 4 + length)
        return response.substr(head_end + 4, length);
      const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (n <= 0) return fail();
      response.append(buffer.data(), static_cast<std::size_t>(n));
    }
  }

 private:
  std::string fail() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return "";
  }

  const Options& options_;
  int fd_ = -1;
};

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

// Reads the given subscribers' streams until `stop`: one multishot recv per
// stream, filling buffers the kernel picks from a ring this thread refills.
void read_streams(std::vector<Subscriber>& subscribers, std::size_t first, std::size_t last,
                  const std::atomic<bool>& stop) {
  constexpr unsigned buffers = 2048;
  constexpr std::size_t buffer_size = 4096;
  constexpr int group = 1;
  io_uring ring{};
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  params.cq_entries = 8192;
  if (io_uring_queue_init_params(static_cast<unsigned>(last - first) + 1, &ring, &params) != 0) {
    std::fputs("ava_sse_fanout: io_uring is not available\n", stderr);
    std::exit(1);
  }
  std::vector<char> memory(buffers * buffer_size);
  void* table = ::mmap(nullptr, buffers * sizeof(io_uring_buf), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  auto* buffer_ring = static_cast<io_uring_buf_ring*>(table);
  io_uring_buf_ring_init(buffer_ring);
  io_uring_buf_reg registration{};
  registration.ring_addr = reinterpret_cast<std::uintptr_t>(table);
  registration.ring_entries = buffers;
  registration.bgid = group;
  if (table == MAP_FAILED || io_uring_register_buf_ring(&ring, &registration, 0) != 0) {
    std::fputs("ava_sse_fanout: cannot register a buffer ring\n", stderr);
    std::exit(1);
  }
  const int mask = io_uring_buf_ring_mask(buffers);
  auto give_back = [&](unsigned id, int offset) {
    io_uring_buf_ring_add(buffer_ring, memory.data() + id * buffer_size, buffer_size,
                          static_cast<unsigned short>(id), mask, offset);
  };
  for (unsigned id = 0; id < buffers; ++id) give_back(id, static_cast<int>(id));
  io_uring_buf_ring_advance(buffer_ring, buffers);
  auto arm = [&ring, &subscribers](std::size_t i) {
    io_uring_sqe* entry = io_uring_get_sqe(&ring);
    io_uring_prep_recv_multishot(entry, subscribers[i].fd, nullptr, 0, 0);
    entry->flags |= IOSQE_BUFFER_SELECT;
    entry->buf_group = group;
    io_uring_sqe_set_data64(entry, i);
  };
  for (std::size_t i = first; i < last; ++i) arm(i);
  __kernel_timespec tick{.tv_sec = 0, .tv_nsec = 100'000'000};
  std::array<io_uring_cqe*, 512> done{};
  while (!stop.load(std::memory_order_relaxed)) {
    io_uring_cqe* any = nullptr;
    if (io_uring_submit_and_wait_timeout(&ring, &any, 1, &tick, nullptr) < 0) continue;
    const unsigned count = io_uring_peek_batch_cqe(&ring, done.data(), done.size());
    const auto now = Clock::now();
    int returned = 0;
    for (unsigned k = 0; k < count; ++k) {
      const io_uring_cqe& completion = *done[k];
      const auto i = static_cast<std::size_t>(io_uring_cqe_get_data64(&completion));
      const int got = completion.res;
      if (got > 0) {
        const unsigned id = completion.flags >> IORING_CQE_BUFFER_SHIFT;
        take_frames(subscribers[i],
                    {memory.data() + id * buffer_size, static_cast<std::size_t>(got)}, now);
        give_back(id, returned++);
      }
      // A multishot recv ends at the stream's end, on an error, or when the
      // ring ran out of buffers (then it is armed again).
      if (!(completion.flags & IORING_CQE_F_MORE) && (got > 0 || got == -ENOBUFS)) arm(i);
    }
    io_uring_buf_ring_advance(buffer_ring, returned);
    io_uring_cq_advance(&ring, count);
  }
  io_uring_queue_exit(&ring);
  ::munmap(table, buffers * sizeof(io_uring_buf));
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
  Poster poster(options);
  const long after = seq_of(poster.post(input_target, R"({"text":"warm-up"})"));
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
        seq_of(poster.post(input_target, "{\"text\":\"round " + std::to_string(round) + "\"}"));
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
    // Reset rather than leave a TIME_WAIT socket: thousands of them make
    // every loopback packet's socket lookup slower for the next run.
    const linger reset{.l_onoff = 1, .l_linger = 0};
    ::setsockopt(subscriber.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
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
