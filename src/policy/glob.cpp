#include "policy/glob.hpp"

#include <cstdint>
#include <vector>

namespace ava::policy {
namespace {

enum class Kind : std::uint8_t { literal, one, star, any, any_dirs };
struct Token {
  Kind kind;
  char c = 0;
};

std::vector<Token> tokens_of(std::string_view pattern, bool paths) {
  std::vector<Token> out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '?') {
      out.push_back({Kind::one});
    } else if (c == '*' && paths && pattern.substr(i, 3) == "**/") {
      out.push_back({Kind::any_dirs});
      i += 2;
    } else if (c == '*' && paths && pattern.substr(i, 2) == "**") {
      out.push_back({Kind::any});
      i += 1;
    } else if (c == '*') {
      out.push_back({paths ? Kind::star : Kind::any});
    } else {
      out.push_back({Kind::literal, c});
    }
  }
  return out;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text, bool paths) {
  const auto tokens = tokens_of(pattern, paths);
  const std::size_t n = text.size();
  // ok[j]: the tokens from i on match text[j..]; filled from the last token back.
  std::vector<char> ok(n + 1, 0);
  ok[n] = 1;
  std::vector<char> next(n + 1, 0);
  for (std::size_t i = tokens.size(); i-- > 0;) {
    const Token token = tokens[i];
    next.assign(n + 1, 0);
    bool slash_ahead = false;  // any_dirs: some k >= j has text[k] == '/' and ok[k + 1]
    for (std::size_t j = n + 1; j-- > 0;) {
      const bool more = j < n;
      switch (token.kind) {
        case Kind::literal: next[j] = more && text[j] == token.c && ok[j + 1]; break;
        case Kind::one: next[j] = more && (!paths || text[j] != '/') && ok[j + 1]; break;
        case Kind::star: next[j] = ok[j] || (more && text[j] != '/' && next[j + 1]); break;
        case Kind::any: next[j] = ok[j] || (more && next[j + 1]); break;
        case Kind::any_dirs:  // nothing, or anything that ends with a '/'
          if (more && text[j] == '/' && ok[j + 1]) slash_ahead = true;
          next[j] = ok[j] || slash_ahead;
          break;
      }
    }
    ok.swap(next);
  }
  return ok[0] != 0;
}

}  // namespace ava::policy
