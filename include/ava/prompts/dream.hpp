#pragma once

#include <string>
#include <vector>

// Memory consolidation ("dream", docs/workflows.md): what the model is asked
// when `ava memory dream` runs it over recent sessions. It only runs when a
// person asks, with the memory and read tools only.
namespace ava::prompts {

struct DreamSession {
  std::string id;
  std::string digest;  // session::conversation_digest, already bounded
};

// The instructions for the run's system prompt.
std::string dream_instructions(bool apply);

// The input: the notes' index and the sessions' digests.
std::string dream_request(const std::string& memory_index,
                          const std::vector<DreamSession>& sessions, bool apply);

}  // namespace ava::prompts
