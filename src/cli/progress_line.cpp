// A transient progress line on stderr (progress_line.hpp).

#include "cli/progress_line.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "ava/ansi/render.hpp"

namespace ava::cli {
namespace {

constexpr auto tick = std::chrono::milliseconds(100);

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const auto n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

ProgressLine::ProgressLine(std::string label, std::chrono::milliseconds after, int fd)
    : fd_(fd), label_(std::move(label)) {
  if (!ansi::can_redraw(fd_)) return;
  thread_ = std::thread([this, after] { run(after); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_) write_all(fd_, "\r\x1b[2K");
}

void ProgressLine::update(std::string label) {
  std::lock_guard lock(mutex_);
  label_ = std::move(label);
}

void ProgressLine::run(std::chrono::milliseconds after) {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, after, [this] { return done_; })) return;
  while (!done_) {
    draw(std::chrono::steady_clock::now() - started_);
    wake_.wait_for(lock, tick, [this] { return done_; });
  }
}

// Called with the mutex held. Cut to the terminal's width, read each time,
// so a resize never leaves a wrapped line behind.
void ProgressLine::draw(std::chrono::steady_clock::duration elapsed) {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const std::string text = fmt::format("ava: {}… {:.1f}s", ansi::sanitize(label_), seconds);
  write_all(fd_, "\r\x1b[2K" + ansi::one_line(text, ansi::terminal_width(fd_) - 1));
  shown_ = true;
}

}  // namespace ava::cli
