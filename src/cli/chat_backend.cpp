// The queue between a chat's conversation and the terminal's thread
// (chat_backend.hpp).

#include "cli/chat_backend.hpp"

namespace ava::cli {

void ChatBackend::push(Item item) {
  {
    std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(item));
  }
  queue_ready_.notify_one();
}

std::optional<ChatBackend::Item> ChatBackend::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(queue_mutex_);
  if (!queue_ready_.wait_for(lock, timeout, [this] { return !queue_.empty(); })) {
    return std::nullopt;
  }
  Item item = std::move(queue_.front());
  queue_.pop_front();
  return item;
}

}  // namespace ava::cli
