#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// Shared by the fuzz targets: an invariant that fails aborts, so libFuzzer
// keeps the input as a crash and the replay test fails on it.
#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

namespace ava::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Reads the input from the front: control bytes for a target (chunk sizes,
// options) without a structured-input library.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint8_t byte(std::uint8_t fallback = 0) {
    if (size_ == 0) return fallback;
    --size_;
    return *data_++;
  }
  std::string_view rest() {
    auto out = as_text(data_, size_);
    data_ += size_;
    size_ = 0;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

}  // namespace ava::fuzz
