#include "ava/prompts/dream.hpp"

#include <fmt/format.h>

namespace ava::prompts {

std::string dream_instructions(bool apply) {
  std::string text =
      "You consolidate an agent's memory notes. Notes are short Markdown files with a one-line "
      "summary, kept across conversations: the user's preferences and ways of working, facts "
      "about the project that its files do not say, decisions and their reasons. Read the "
      "recent sessions below and the current notes (the memory tool reads a note's body).\n\n"
      "Worth a note: what will still matter in a later conversation. Not worth one: what the "
      "code or git history already records, one-off details, anything secret (keys, "
      "passwords, tokens). Prefer updating a note over adding a near duplicate; forget a note "
      "that the sessions show to be wrong or obsolete.\n\n";
  text += apply ? "Make the changes with the memory tool (save, update, forget; scope project for "
                  "this project's facts, user for the person's preferences), then list what you "
                  "changed and why, one line each."
                : "You cannot change notes in this run. Propose the changes, one per line: "
                  "`save NAME (scope): summary`, `update NAME (scope): what changes`, or "
                  "`forget NAME (scope)`, each followed by why. Say so if nothing should change.";
  return text;
}

std::string dream_request(const std::string& memory_index,
                          const std::vector<DreamSession>& sessions, bool apply) {
  std::string text = fmt::format(
      "Memory consolidation (ava memory dream{}): {} recent session{} of this project.\n\n",
      apply ? " --apply" : "", sessions.size(), sessions.size() == 1 ? "" : "s");
  text += "<current_notes>\n";
  text += memory_index.empty() ? std::string("(none)\n") : memory_index;
  text += "</current_notes>\n";
  for (const auto& session : sessions) {
    text += fmt::format("\n<session id=\"{}\">\n{}</session>\n", session.id, session.digest);
  }
  return text;
}

}  // namespace ava::prompts
