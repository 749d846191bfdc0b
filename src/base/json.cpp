#include "ava/base/json.hpp"

namespace ava::base {

std::size_t json_depth(std::string_view text, std::size_t stop_after) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stop_after) return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<void> check_json_text(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return fail(ErrorCode::limit_exceeded, "JSON document of " + std::to_string(text.size()) +
                                               " bytes is over the limit of " +
                                               std::to_string(limits.max_bytes));
  }
  // nlohmann's lexer takes a NUL for the end of the input and would return
  // what came before it; valid JSON never holds a raw NUL.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return fail(ErrorCode::parse, "invalid JSON: a NUL byte at byte " + std::to_string(nul));
  }
  // Counted before parsing: nlohmann's parser itself is iterative, but the
  // value it builds would be copied and dumped recursively.
  if (json_depth(text, limits.max_depth) > limits.max_depth) {
    return fail(ErrorCode::limit_exceeded,
                "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels");
  }
  return {};
}

Result<nlohmann::json> parse_json(std::string_view text, const JsonLimits& limits) {
  AVA_TRY_VOID(check_json_text(text, limits));
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    return fail(ErrorCode::parse, "invalid JSON at byte " + std::to_string(error.byte) + ": " +
                                      std::string(error.what()).substr(0, 200));
  } catch (const std::exception& error) {
    return fail(ErrorCode::parse, std::string("invalid JSON: ") + error.what());
  }
}

}  // namespace ava::base
