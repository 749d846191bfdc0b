// `ava debug stream --provider P FILE`: decodes a captured SSE body with the
// provider's adapter and prints the neutral events as JSON lines, then one
// summary line. Exit status 0 for a complete response, 1 when the stream
// ended in an error (including a missing terminal event), 2 when the file
// cannot be read.

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ava/llm/decoder.hpp"
#include "ava/llm/event_json.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

namespace {

constexpr CommandName command_name{"debug stream"};

// A stream that ended in an error is what was asked about, not a failure of
// the command: it exits 1 with the summary on stdout.
Result<int> debug_stream(const std::string& provider, const std::string& path) {
  auto api = llm::parse_wire_api(provider);
  if (!api) return usage_error(command_name, api.error());
  std::ifstream in(path, std::ios::binary);
  if (!in) return usage_error(command_name, {ErrorCode::not_found, "cannot read " + path});
  std::ostringstream body;
  body << in.rdbuf();
  llm::Response response =
      llm::decode_sse_body(*api, body.str(), [](const llm::StreamEvent& event) {
        std::string line = llm::event_json_line(event);
        line.push_back('\n');
        std::fputs(line.c_str(), stdout);
      });
  std::string summary = llm::summary_json_line(response);
  summary.push_back('\n');
  std::fputs(summary.c_str(), stdout);
  return response.error ? 1 : 0;
}

}  // namespace

void add_debug_commands(CLI::App& cli, CliContext& context) {
  auto* debug = cli.add_subcommand("debug", "Tools for checking what providers send");
  debug->require_subcommand(1);
  auto* stream = debug->add_subcommand(
      "stream", "Decode a captured SSE body and print the neutral stream events as JSON lines");
  auto provider = std::make_shared<std::string>();
  auto file = std::make_shared<std::string>();
  stream->add_option("--provider", *provider, "Wire format: anthropic, openai or openai-responses")
      ->required()
      ->check(CLI::IsMember({"anthropic", "openai", "openai-responses"}));
  stream->add_option("file", *file, "The SSE body, byte for byte as the provider sent it")
      ->required();
  stream->callback([&context, provider, file] {
    finish(context, command_name, debug_stream(*provider, *file));
  });
}

}  // namespace ava::cli
