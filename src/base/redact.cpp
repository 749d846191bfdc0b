#include <array>
#include <cctype>

#include "ava/base/log.hpp"
#include "ava/base/text.hpp"

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

// Prefixes of credentials that are recognisable on their own.
constexpr std::array kKeyPrefixes = {
    std::string_view("sk-"),         std::string_view("ghp_"),   std::string_view("gho_"),
    std::string_view("ghu_"),        std::string_view("ghs_"),   std::string_view("ghr_"),
    std::string_view("github_pat_"), std::string_view("glpat-"), std::string_view("xoxb-"),
    std::string_view("xoxp-"),       std::string_view("xoxa-"),  std::string_view("xoxs-")};

// Query parameters whose values grant something: OAuth's state, code and
// PKCE challenge (a sign-in URL in a log is a sign-in someone else can
// finish), signatures and keys of pre-signed URLs.
constexpr std::array kSecretParams = {std::string_view("state"),
                                      std::string_view("code"),
                                      std::string_view("code_challenge"),
                                      std::string_view("code_verifier"),
                                      std::string_view("nonce"),
                                      std::string_view("sig"),
                                      std::string_view("signature"),
                                      std::string_view("key"),
                                      std::string_view("auth"),
                                      std::string_view("session"),
                                      std::string_view("jwt"),
                                      std::string_view("assertion")};
// Parts of names (parameters, flags, variables) that mark a secret.
constexpr std::array kSecretWords = {
    std::string_view("token"),         std::string_view("secret"),
    std::string_view("password"),      std::string_view("passwd"),
    std::string_view("apikey"),        std::string_view("api_key"),
    std::string_view("api-key"),       std::string_view("credential"),
    std::string_view("private_key"),   std::string_view("private-key"),
    std::string_view("access_key"),    std::string_view("access-key"),
    std::string_view("authorization"), std::string_view("signature")};

bool secret_param(std::string_view name) {
  const auto lower = ascii_lower(name);
  for (auto exact : kSecretParams) {
    if (lower == exact) return true;
  }
  for (auto word : kSecretWords) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

bool url_delimiter(char c) {
  return c == '&' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' ||
         c == '\'' || c == '<' || c == '>';
}

// At text[at] == '?' or '&' starting `name=value` with a secret name: where
// the value starts and ends.
std::optional<std::pair<std::size_t, std::size_t>> secret_param_value(std::string_view text,
                                                                      std::size_t at) {
  std::size_t i = at + 1;
  const std::size_t name_start = i;
  while (i < text.size() && text[i] != '=' && !url_delimiter(text[i]) && text[i] != '?') ++i;
  if (i >= text.size() || text[i] != '=' || i == name_start) return std::nullopt;
  if (!secret_param(text.substr(name_start, i - name_start))) return std::nullopt;
  const std::size_t start = i + 1;
  std::size_t end = start;
  while (end < text.size() && !url_delimiter(text[end])) ++end;
  if (end == start) return std::nullopt;
  return std::make_pair(start, end);
}

// At text[at..] == "://": the end of a userinfo part ("user:pass@") that
// follows it, or nullopt when the authority has none.
std::optional<std::size_t> userinfo_end(std::string_view text, std::size_t at) {
  const std::size_t start = at + 3;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '@') return i == start ? std::nullopt : std::optional<std::size_t>(i);
    if (c == '/' || c == '?' || c == '#' || url_delimiter(c)) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::string redact(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    // URLs: "scheme://user:pass@host" and "?state=...&token=...".
    if (text.compare(i, 3, "://") == 0) {
      if (const auto end = userinfo_end(text, i)) {
        out += "://";
        out += kMask;
        i = *end;  // the '@' is kept
        continue;
      }
    }
    if (text[i] == '?' || text[i] == '&') {
      if (const auto value = secret_param_value(text, i)) {
        out.append(text.substr(i, value->first - i));
        out += kMask;
        i = value->second;
        continue;
      }
    }
    // Keys of known formats (sk-..., sk-ant-..., GitHub, GitLab and Slack
    // tokens) with at least 16 token characters after the prefix.
    if (i == 0 || !is_token_char(text[i - 1])) {
      bool masked_key = false;
      for (auto prefix : kKeyPrefixes) {
        if (!starts_with_ci(text, i, prefix)) continue;
        const std::size_t end = token_end(text, i + prefix.size());
        if (end - i - prefix.size() < 16) continue;
        out.append(text.substr(i, prefix.size()));
        out += kMask;
        i = end;
        masked_key = true;
        break;
      }
      if (masked_key) continue;
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

std::string redact_url(std::string_view url) { return redact(url); }

std::vector<std::string> redact_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  bool value_is_secret = false;  // the previous argument was a flag naming a secret
  for (const auto& arg : args) {
    if (value_is_secret && !arg.starts_with("-")) {
      out.emplace_back(kMask);
      value_is_secret = false;
      continue;
    }
    value_is_secret = false;
    const auto equals = arg.find('=');
    const auto name = arg.substr(0, equals);
    const bool url = arg.find("://") != std::string::npos && arg.find("://") < equals;
    if (equals != std::string::npos && !url && secret_param(name)) {
      // --token=x, API_KEY=x
      out.push_back(name + "=" + std::string(kMask));
      continue;
    }
    if (arg.starts_with("-") && equals == std::string::npos && secret_param(arg)) {
      value_is_secret = true;  // --api-key VALUE
    }
    out.push_back(redact(arg));
  }
  return out;
}

}  // namespace ava::base
