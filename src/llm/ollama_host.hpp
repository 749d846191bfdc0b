#pragma once

#include <string>
#include <string_view>

namespace ava::llm {

// Ollama's own OLLAMA_HOST ("host", "host:port", "http://host:port", the
// port 11434 and the scheme http by default) as the base URL of its
// OpenAI-compatible API. A wildcard bind address (0.0.0.0, ::) is reached on
// loopback. Empty when `host` is.
std::string ollama_base_url(std::string_view host);

// Where Ollama's own API (/api/tags, /api/pull) is: the base URL without the
// /v1 of its OpenAI-compatible API.
std::string ollama_root(std::string_view base_url);

}  // namespace ava::llm
