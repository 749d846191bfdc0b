#pragma once

#include <string>
#include <string_view>
#include <vector>

// What of the user's environment a child started for an agent or an MCP
// server sees. Variables that look like credentials stay out (as Codex does
// by default): the model can run any command, and an MCP server is someone
// else's code, so neither should read ANTHROPIC_API_KEY or a cloud token
// that happens to be exported in the shell that started Ava.
namespace ava::proc {

// True when the name contains KEY, SECRET, TOKEN or PASSWORD, in any case
// (ANTHROPIC_API_KEY, GITHUB_TOKEN, aws_secret_access_key, PGPASSWORD).
bool secret_variable(std::string_view name);

// Names that stay in scrubbed environments although they look secret:
// settings.json "childEnvironment": {"keep": [...]}. Process-wide, set by
// the application after it reads its settings; thread-safe.
void set_kept_variables(std::vector<std::string> names);
std::vector<std::string> kept_variables();

// "NAME=value" entries of `environment` without the secret-looking ones,
// except those named in `keep` or in kept_variables().
std::vector<std::string> scrub_environment(const std::vector<std::string>& environment,
                                           const std::vector<std::string>& keep = {});

// The current process's environment, scrubbed.
std::vector<std::string> scrubbed_environment(const std::vector<std::string>& keep = {});

}  // namespace ava::proc
