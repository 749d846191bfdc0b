#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "policy/shell_line.hpp"

using ava::policy::split_shell_line;
using Commands = std::vector<std::string>;

TEST_CASE("a command line splits at its operators outside quotes", "[policy]") {
  CHECK(split_shell_line("git status && rm -rf / ; ls | wc -l & true || false\nid").commands ==
        Commands{"git status", "rm -rf /", "ls", "wc -l", "true", "false", "id"});
  CHECK(split_shell_line("echo 'a; b' \"c && d\" e\\;f").commands ==
        Commands{"echo 'a; b' \"c && d\" e\\;f"});
  CHECK_FALSE(split_shell_line("git log --oneline | head").opaque);
}

TEST_CASE("substitutions, redirections and open quotes make a line opaque", "[policy]") {
  CHECK(split_shell_line("echo $(rm -rf /)").opaque);
  CHECK(split_shell_line("echo \"`id`\"").opaque);
  CHECK(split_shell_line("diff <(ls a) <(ls b)").opaque);
  CHECK(split_shell_line("git status > /etc/passwd").opaque);
  CHECK(split_shell_line("echo 'unterminated").opaque);
  CHECK_FALSE(split_shell_line("echo '$(not run)'").opaque);
}
