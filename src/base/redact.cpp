#include <array>
#include <cctype>

#include "ava/base/log.hpp"

namespace ava::base {

namespace {

constexpr std::string_view kMask = "[redacted]";

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' ||
         c == '~' || c == '+' || c == '/' || c == '=';
}

bool starts_with_ci(std::string_view text, std::size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  }
  return true;
}

std::size_t token_end(std::string_view text, std::size_t from) {
  while (from < text.size() && is_token_char(text[from])) ++from;
  return from;
}

// Key names whose values are credentials. Matched case-insensitively as the
// end of a key ("x-api-key", "ANTHROPIC_API_KEY", "access_token").
constexpr std::array kSecretKeys = {std::string_view("api_key"),      std::string_view("api-key"),
                                    std::string_view("apikey"),       std::string_view("token"),
                                    std::string_view("secret"),       std::string_view("password"),
                                    std::string_view("authorization")};

// If a secret key name ends at `key_end`, returns where its value starts.
std::optional<std::size_t> secret_value_start(std::string_view text, std::size_t key_end) {
  std::size_t i = key_end;
  if (i < text.size() && text[i] == '"') ++i;  // closing quote of a JSON key
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i >= text.size() || (text[i] != ':' && text[i] != '=')) return std::nullopt;
  ++i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '"')) ++i;
  if (i >= text.size()) return std::nullopt;
  return i;
}

}  // namespace

std::string redact(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    // Provider keys: sk-..., sk-ant-..., with at least 16 token characters.
    if (starts_with_ci(text, i, "sk-") && (i == 0 || !is_token_char(text[i - 1]))) {
      const std::size_t end = token_end(text, i + 3);
      if (end - i >= 19) {
        out += "sk-";
        out += kMask;
        i = end;
        continue;
      }
    }
    if (starts_with_ci(text, i, "bearer ")) {
      const std::size_t start = i + 7;
      const std::size_t end = token_end(text, start);
      if (end - start >= 8) {
        out.append(text.substr(i, 7));
        out += kMask;
        i = end;
        continue;
      }
    }
    bool masked = false;
    for (auto key : kSecretKeys) {
      if (!starts_with_ci(text, i, key)) continue;
      const auto value = secret_value_start(text, i + key.size());
      if (!value) continue;
      out.append(text.substr(i, *value - i));
      // "Authorization: Bearer x" keeps the scheme word readable.
      std::size_t start = *value;
      if (starts_with_ci(text, start, "bearer ")) {
        out.append(text.substr(start, 7));
        start += 7;
      }
      std::size_t end = token_end(text, start);
      if (end == start) {
        out.append(text.substr(*value, start - *value));
        i = start;
        masked = true;
        break;
      }
      out += kMask;
      i = end;
      masked = true;
      break;
    }
    if (masked) continue;
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

}  // namespace ava::base
