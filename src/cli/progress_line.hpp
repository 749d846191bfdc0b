#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ava::cli {

// "ava: starting the backend… 1.4s" on stderr while a long wait runs (the
// backend starting, MCP servers listing their tools, a model download),
// redrawn in place and erased when the wait ends. Only on a terminal that
// can redraw (ansi::can_redraw), and only once the wait passed `after`, so
// quick runs and scripts see nothing.
class ProgressLine {
 public:
  explicit ProgressLine(std::string label,
                        std::chrono::milliseconds after = std::chrono::milliseconds(300),
                        int fd = 2);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A new label for the rest of the wait ("downloading… 42%").
  void update(std::string label);

 private:
  void run(std::chrono::milliseconds after);
  void draw(std::chrono::steady_clock::duration elapsed);

  int fd_;
  std::string label_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace ava::cli
