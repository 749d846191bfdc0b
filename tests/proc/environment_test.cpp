#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "ava/proc/environment.hpp"
#include "ava/proc/spawn.hpp"

using ava::proc::scrub_environment;
using ava::proc::secret_variable;
using Entries = std::vector<std::string>;

namespace {

bool has(const Entries& env, std::string_view name) {
  for (const auto& entry : env) {
    if (entry.starts_with(std::string(name) + "=")) return true;
  }
  return false;
}

// Restores the process-wide kept names when a test ends.
struct KeptNames {
  explicit KeptNames(Entries names) { ava::proc::set_kept_variables(std::move(names)); }
  ~KeptNames() { ava::proc::set_kept_variables({}); }
  KeptNames(const KeptNames&) = delete;
  KeptNames& operator=(const KeptNames&) = delete;
};

}  // namespace

TEST_CASE("names with KEY, SECRET, TOKEN or PASSWORD in any case are secret", "[proc][env]") {
  for (const char* name : {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "FOO_TOKEN", "GITHUB_TOKEN",
                           "aws_secret_access_key", "PGPASSWORD", "db_password", "Api_Key"}) {
    CAPTURE(name);
    CHECK(secret_variable(name));
  }
  for (const char* name : {"PATH", "HOME", "LANG", "TERM", "SSH_AUTH_SOCK", "USER", "TMPDIR"}) {
    CAPTURE(name);
    CHECK_FALSE(secret_variable(name));
  }
}

TEST_CASE("scrubbing drops secret-looking variables and keeps the rest", "[proc][env]") {
  const Entries env{"PATH=/usr/bin", "HOME=/home/me", "ANTHROPIC_API_KEY=sk-x", "FOO_TOKEN=t",
                    "my_secret=s",   "PGPASSWORD=p",  "GITHUB_TOKEN=ghp_x",     "VALUE=KEY=inside"};
  const auto scrubbed = scrub_environment(env);
  CHECK(scrubbed == Entries{"PATH=/usr/bin", "HOME=/home/me", "VALUE=KEY=inside"});

  SECTION("names the caller keeps stay") {
    const auto kept = scrub_environment(env, {"GITHUB_TOKEN"});
    CHECK(has(kept, "GITHUB_TOKEN"));
    CHECK_FALSE(has(kept, "FOO_TOKEN"));
  }
  SECTION("names kept process-wide (settings.json childEnvironment.keep) stay") {
    const KeptNames settings({"PGPASSWORD"});
    const auto kept = scrub_environment(env);
    CHECK(has(kept, "PGPASSWORD"));
    CHECK_FALSE(has(kept, "ANTHROPIC_API_KEY"));
  }
}

TEST_CASE("a scrubbed spawn environment still carries the configured variables", "[proc][env]") {
  ::setenv("AVA_ENV_TEST_API_KEY", "inherited", 1);
  ::setenv("AVA_ENV_TEST_PLAIN", "plain", 1);
  ava::proc::SpawnOptions options;
  options.scrub_secrets = true;
  options.env = {{"SERVER_TOKEN", "configured"}};
  const auto env = ava::proc::build_environment(options);
  CHECK_FALSE(has(env, "AVA_ENV_TEST_API_KEY"));
  CHECK(has(env, "AVA_ENV_TEST_PLAIN"));
  CHECK(has(env, "PATH"));
  CHECK(std::ranges::find(env, "SERVER_TOKEN=configured") != env.end());

  SECTION("without the flag nothing is scrubbed") {
    const auto plain = ava::proc::build_environment(ava::proc::SpawnOptions{});
    CHECK(has(plain, "AVA_ENV_TEST_API_KEY"));
  }
  ::unsetenv("AVA_ENV_TEST_API_KEY");
  ::unsetenv("AVA_ENV_TEST_PLAIN");
}
