#include "ava/base/id.hpp"

#include <sys/random.h>

#include <cerrno>
#include <mutex>
#include <random>

namespace ava::base {

namespace {

struct Generator {
  std::mutex mutex;
  std::uint64_t last_ms = 0;
  std::uint16_t counter = 0;  // 12 bits used
  std::mt19937_64 random{random_seed()};
};

Generator& generator() {
  static Generator instance;
  return instance;
}

std::uint64_t wall_ms() {
  using namespace std::chrono;
  return static_cast<std::uint64_t>(
      duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count());
}

}  // namespace

std::uint64_t random_seed() {
  std::uint64_t seed = 0;
  ssize_t got = -1;
  do {
    got = ::getrandom(&seed, sizeof seed, 0);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof seed)) return seed;
  // Without getrandom (a very old kernel or a seccomp filter) the device
  // still works.
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) | device();
}

Uuid new_uuid_v7() {
  auto& gen = generator();
  std::uint64_t ms = 0;
  std::uint16_t counter = 0;
  std::uint64_t random_bits = 0;
  {
    std::lock_guard lock(gen.mutex);
    const std::uint64_t now = wall_ms();
    if (now > gen.last_ms) {
      gen.last_ms = now;
      // Start each millisecond in the lower half so a burst has room to count.
      gen.counter = static_cast<std::uint16_t>(gen.random() & 0x7ff);
    } else if (++gen.counter > 0xfff) {
      // Counter exhausted (or the clock stepped back): borrow the next
      // millisecond rather than repeat or go backwards.
      ++gen.last_ms;
      gen.counter = 0;
    }
    ms = gen.last_ms;
    counter = gen.counter;
    random_bits = gen.random();
  }
  Uuid id;
  for (int i = 0; i < 6; ++i) id.bytes[i] = static_cast<std::uint8_t>(ms >> (40 - 8 * i));
  id.bytes[6] = static_cast<std::uint8_t>(0x70 | ((counter >> 8) & 0x0f));
  id.bytes[7] = static_cast<std::uint8_t>(counter & 0xff);
  for (int i = 0; i < 8; ++i)
    id.bytes[8 + i] = static_cast<std::uint8_t>(random_bits >> (56 - 8 * i));
  id.bytes[8] = static_cast<std::uint8_t>(0x80 | (id.bytes[8] & 0x3f));  // RFC 9562 variant
  return id;
}

std::string Uuid::str() const {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(hex[bytes[i] >> 4]);
    out.push_back(hex[bytes[i] & 0x0f]);
  }
  return out;
}

std::chrono::milliseconds Uuid::unix_ms() const {
  std::uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | bytes[i];
  return std::chrono::milliseconds(ms);
}

bool parse_uuid(std::string_view text, Uuid& out) {
  if (text.size() != 36) return false;
  Uuid id;
  std::size_t byte = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
      ++i;
      continue;
    }
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int high = nibble(text[i]);
    const int low = nibble(text[i + 1]);
    if (high < 0 || low < 0) return false;
    id.bytes[byte++] = static_cast<std::uint8_t>((high << 4) | low);
    i += 2;
  }
  out = id;
  return true;
}

}  // namespace ava::base
