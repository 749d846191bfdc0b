#include "ava/session/digest.hpp"

#include <fmt/format.h>

namespace ava::session {

std::string conversation_digest(const std::vector<Event>& events, std::size_t max_bytes) {
  std::string text;
  for (const auto& event : events) {
    if (const auto* input = std::get_if<InputAcknowledged>(&event.body)) {
      text += "User: " + input->text + "\n\n";
    } else if (const auto* message = std::get_if<AssistantMessage>(&event.body)) {
      std::string said;
      for (const auto& block : message->content) {
        if (const auto* part = std::get_if<content::TextBlock>(&block)) said += part->text;
      }
      if (!said.empty()) text += "Assistant: " + said + "\n\n";
    }
  }
  if (text.size() <= max_bytes) return text;
  // Keep the newest part: cut where a character starts.
  std::size_t from = text.size() - max_bytes;
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  return fmt::format("[... {} earlier bytes left out]\n", from) + text.substr(from);
}

}  // namespace ava::session
