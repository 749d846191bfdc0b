// The first command a client runs on a machine.
#include "ava/remote/probe.hpp"

namespace ava::remote {

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string probe_command() {
  std::string script =
      "printf 'os=%s\\n' \"$(uname -s)\"; printf 'arch=%s\\n' \"$(uname -m)\"; "
      "printf 'home=%s\\n' \"$HOME\"; "
      "for p in \"$HOME/" +
      std::string(remote_install_dir) +
      "/current/ava\" "
      "\"$(command -v ava 2>/dev/null)\"; do "
      "if [ -n \"$p\" ] && [ -x \"$p\" ]; then printf 'ava=%s\\n' \"$p\"; "
      "printf 'version=%s\\n' \"$(\"$p\" --version 2>/dev/null | head -n 1)\"; break; fi; done";
  return "sh -c " + shell_quote(script);
}

Result<RemoteSystem> parse_probe(std::string_view output) {
  RemoteSystem system;
  std::size_t lines = 0;
  while (!output.empty()) {
    std::size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    output = end == std::string_view::npos ? std::string_view{} : output.substr(end + 1);
    if (++lines > 5 || line.size() > 4096) {
      return fail(ErrorCode::parse, "the machine's answer to the probe is not what Ava sent");
    }
    std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      return fail(ErrorCode::parse, "unexpected probe line: " + std::string(line.substr(0, 200)));
    }
    std::string_view key = line.substr(0, equals);
    std::string value(line.substr(equals + 1));
    if (key == "os")
      system.os = value;
    else if (key == "arch")
      system.arch = value;
    else if (key == "home")
      system.home = value;
    else if (key == "ava")
      system.ava_path = value;
    else if (key == "version" && !value.empty())
      system.ava_version = value;
  }
  if (system.os.empty() || system.arch.empty()) {
    return fail(ErrorCode::parse, "the machine did not say its system (uname failed?)");
  }
  return system;
}

}  // namespace ava::remote
