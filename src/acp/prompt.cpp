#include "ava/acp/prompt.hpp"

#include <fmt/format.h>

#include "ava/base/json.hpp"

namespace ava::acp {

namespace {

using nlohmann::json;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// file:///a/b%20c -> /a/b c; anything else (or a malformed escape, or one
// that decodes to a NUL) stays the URI as given.
std::string path_of(const std::string& uri) {
  constexpr std::string_view scheme = "file://";
  if (!uri.starts_with(scheme)) return uri;
  std::string path;
  for (std::size_t at = scheme.size(); at < uri.size(); ++at) {
    if (uri[at] != '%') {
      path += uri[at];
      continue;
    }
    const int high = at + 2 < uri.size() ? hex_digit(uri[at + 1]) : -1;
    const int low = high < 0 ? -1 : hex_digit(uri[at + 2]);
    if (low < 0 || (high == 0 && low == 0)) return uri;
    path += static_cast<char>(high * 16 + low);
    at += 2;
  }
  return path;
}

}  // namespace

Result<std::string> prompt_text(const json& blocks) {
  if (!blocks.is_array()) {
    return fail(ErrorCode::invalid_argument, "prompt must be an array of content blocks");
  }
  std::string text;
  auto add = [&text](const std::string& part) {
    if (!text.empty() && !text.ends_with('\n') && !part.starts_with('\n')) text += '\n';
    text += part;
  };
  for (const auto& block : blocks) {
    const auto type = base::json_value(block, "type", std::string());
    if (type == "text") {
      add(base::json_value(block, "text", std::string()));
    } else if (type == "resource_link") {
      add("@" + path_of(base::json_value(block, "uri", std::string())));
    } else if (type == "resource") {
      const auto resource = base::json_value(block, "resource", json::object());
      if (!resource.is_object() || !resource.contains("text") || !resource["text"].is_string()) {
        return fail(ErrorCode::invalid_argument, "only text resources can be embedded");
      }
      add(fmt::format("<context file=\"{}\">\n{}\n</context>",
                      path_of(base::json_value(resource, "uri", std::string())),
                      resource["text"].get<std::string>()));
    } else {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("prompt content of type \"{}\" is not supported (text, "
                              "resource_link, resource)",
                              type.substr(0, 40)));
    }
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(ErrorCode::invalid_argument, "the prompt has no text");
  }
  return text;
}

}  // namespace ava::acp
