#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ava/session/log_writer.hpp"

namespace ava::test {

inline session::SessionStarted sample_start(std::string id = "s1") {
  return {
      .session_id = std::move(id), .provider = "mock", .model = "m", .cwd = "/tmp", .version = "t"};
}

// Runs a shell command and returns its exit status and standard output.
struct CommandOutput {
  int status = -1;
  std::string out;
};
inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, got);
  result.status = ::pclose(pipe);
  return result;
}

// `zstd -t` accepts the whole file as one valid zstd stream.
inline bool zstd_accepts(const std::filesystem::path& path) {
  return run_command("zstd -q -t '" + path.string() + "' 2>&1").status == 0;
}

// The lines `zstdcat` prints, which must be the events as JSONL.
inline std::vector<std::string> zstdcat_lines(const std::filesystem::path& path) {
  auto output = run_command("zstdcat '" + path.string() + "'");
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < output.out.size()) {
    const auto end = output.out.find('\n', start);
    if (end == std::string::npos) break;
    lines.push_back(output.out.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace ava::test
