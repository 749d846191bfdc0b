#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ava::proc {

// Output of a process kept within a byte bound: the first half of the bound
// (head) and the last half (tail) survive, the middle is counted and dropped.
// Commands put their reason for failing at either end (a usage line first, the
// error last), so head and tail beat keeping only one side.
class OutputCapture {
 public:
  explicit OutputCapture(std::size_t limit);

  void append(std::string_view bytes);

  std::size_t total_bytes() const { return total_; }
  std::size_t omitted_bytes() const { return total_ - head_.size() - tail_size_; }
  bool truncated() const { return omitted_bytes() > 0; }

  // Head, then "\n[... N bytes omitted ...]\n" when something was cut, then tail.
  std::string text() const;

 private:
  std::size_t head_limit_;
  std::size_t tail_limit_;
  std::string head_;
  std::string tail_;            // ring buffer of tail_limit_ bytes once full
  std::size_t tail_start_ = 0;  // oldest byte of the ring
  std::size_t tail_size_ = 0;
  std::size_t total_ = 0;
};

// The marker put where bytes were cut, shared by every truncating reader.
std::string omitted_marker(std::size_t omitted_bytes);

// Keeps head and tail of `text` within `limit` bytes, same marker as above.
std::string truncate_middle(std::string_view text, std::size_t limit);

}  // namespace ava::proc
