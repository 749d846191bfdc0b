#include "ava/proc/capture.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ava::proc {

OutputCapture::OutputCapture(std::size_t limit)
    : head_limit_(limit - limit / 2), tail_limit_(limit / 2) {}

void OutputCapture::append(std::string_view bytes) {
  total_ += bytes.size();
  const std::size_t to_head = std::min(bytes.size(), head_limit_ - head_.size());
  head_.append(bytes.substr(0, to_head));
  bytes.remove_prefix(to_head);
  if (bytes.empty() || tail_limit_ == 0) return;
  // Only the last tail_limit_ bytes of this chunk can survive.
  if (bytes.size() >= tail_limit_) {
    tail_.assign(bytes.substr(bytes.size() - tail_limit_));
    tail_start_ = 0;
    tail_size_ = tail_limit_;
    return;
  }
  if (tail_.size() < tail_limit_) tail_.resize(tail_limit_);
  while (!bytes.empty()) {
    const std::size_t write_at = (tail_start_ + tail_size_) % tail_limit_;
    const std::size_t count = std::min(bytes.size(), tail_limit_ - write_at);
    bytes.copy(tail_.data() + write_at, count);
    const std::size_t overflow =
        tail_size_ + count > tail_limit_ ? tail_size_ + count - tail_limit_ : 0;
    tail_size_ = std::min(tail_limit_, tail_size_ + count);
    tail_start_ = (tail_start_ + overflow) % tail_limit_;
    bytes.remove_prefix(count);
  }
}

std::string OutputCapture::text() const {
  std::string out = head_;
  if (truncated()) out += omitted_marker(omitted_bytes());
  if (tail_size_ == 0) return out;
  const std::size_t first = std::min(tail_size_, tail_limit_ - tail_start_);
  out.append(tail_, tail_start_, first);
  out.append(tail_, 0, tail_size_ - first);
  return out;
}

std::string omitted_marker(std::size_t omitted_bytes) {
  return fmt::format("\n[... {} bytes omitted ...]\n", omitted_bytes);
}

std::string truncate_middle(std::string_view text, std::size_t limit) {
  OutputCapture capture(limit);
  capture.append(text);
  return capture.text();
}

}  // namespace ava::proc
