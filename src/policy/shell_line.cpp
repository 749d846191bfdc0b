#include "policy/shell_line.hpp"

namespace ava::policy {
namespace {

void push_trimmed(std::string& current, std::vector<std::string>& out) {
  const auto first = current.find_first_not_of(" \t");
  if (first != std::string::npos) {
    const auto last = current.find_last_not_of(" \t");
    out.push_back(current.substr(first, last - first + 1));
  }
  current.clear();
}

}  // namespace

ShellLine split_shell_line(std::string_view line) {
  ShellLine out;
  std::string current;
  bool single = false;
  bool dquote = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (single) {
      single = c != '\'';
      current += c;
      continue;
    }
    if (c == '\\' && i + 1 < line.size()) {
      current += c;
      current += line[++i];
      continue;
    }
    // Substitutions run inside double quotes too.
    if (c == '`' || (c == '$' && next == '(')) out.opaque = true;
    if (dquote) {
      dquote = c != '"';
      current += c;
      continue;
    }
    if (c == '\'') single = true;
    if (c == '"') dquote = true;
    if ((c == '<' || c == '>') && next == '(') out.opaque = true;  // process substitution
    if (c == '>' || c == '<') out.opaque = true;                   // redirections
    if (c == ';' || c == '\n' || c == '&' || c == '|') {
      push_trimmed(current, out.commands);
      if ((c == '&' || c == '|') && next == c) ++i;  // && and ||
      continue;
    }
    current += c;
  }
  // An unterminated quote leaves text bash would refuse: nothing proven.
  if (single || dquote) out.opaque = true;
  push_trimmed(current, out.commands);
  return out;
}

}  // namespace ava::policy
