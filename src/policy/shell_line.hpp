#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ava::policy {

// A bash command line cut into its simple commands at ; && || | & and
// newlines outside quotes, each trimmed. `opaque` is set when the line runs
// something no rule can see from its text (command or process substitution,
// backquotes) or writes through a redirection: such a line is never proven
// to match an allow rule.
struct ShellLine {
  std::vector<std::string> commands;
  bool opaque = false;
};
ShellLine split_shell_line(std::string_view line);

}  // namespace ava::policy
