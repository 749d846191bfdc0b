#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "ava/base/log.hpp"
#include "support/temp_dir.hpp"

using ava::base::redact;

TEST_CASE("provider keys and bearer tokens are masked", "[log]") {
  CHECK(redact("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz ok") == "key sk-[redacted] ok");
  CHECK(redact("sk-proj-0123456789abcdef0123") == "sk-[redacted]");
  CHECK(redact("Authorization: Bearer abcdef0123456789") == "Authorization: Bearer [redacted]");
  CHECK(redact("bearer abcdefgh1234") == "bearer [redacted]");
}

TEST_CASE("values of secret-named keys are masked in JSON and key=value text", "[log]") {
  CHECK(redact(R"({"api_key": "abc123", "model": "x"})") ==
        R"({"api_key": "[redacted]", "model": "x"})");
  CHECK(redact("ANTHROPIC_API_KEY=abc123 next") == "ANTHROPIC_API_KEY=[redacted] next");
  CHECK(redact("x-api-key: zz9") == "x-api-key: [redacted]");
  CHECK(redact(R"({"access_token":"t0k"})") == R"({"access_token":"[redacted]"})");
  CHECK(redact("password = hunter2") == "password = [redacted]");
}

TEST_CASE("ordinary text passes unchanged", "[log]") {
  const std::string text = "tokens used: 12, the sk-short word, token count 3, risk-free";
  CHECK(redact(text) == text);
  CHECK(redact("") == "");
}

TEST_CASE("URLs lose their credentials and their sign-in parameters", "[log][redact]") {
  using ava::base::redact_url;
  CHECK(redact_url("postgres://admin:pw@db.example:5432/x") ==
        "postgres://[redacted]@db.example:5432/x");
  CHECK(redact_url("https://ghp_x@github.com/o/r") == "https://[redacted]@github.com/o/r");
  CHECK(redact_url("https://as.example/authorize?response_type=code&client_id=ava&"
                   "code_challenge=E9Mel&code_challenge_method=S256&state=xyz&scope=a") ==
        "https://as.example/authorize?response_type=code&client_id=ava&"
        "code_challenge=[redacted]&code_challenge_method=S256&state=[redacted]&scope=a");
  CHECK(redact_url("http://127.0.0.1:5/callback?code=c0de&state=s") ==
        "http://127.0.0.1:5/callback?code=[redacted]&state=[redacted]");
  CHECK(redact_url("https://h/mcp?api_key=k1&access_token=t2&X-Amz-Signature=s3&page=2") ==
        "https://h/mcp?api_key=[redacted]&access_token=[redacted]&X-Amz-Signature=[redacted]&"
        "page=2");
  CHECK(redact_url("https://h/mcp?team=a&region=eu") == "https://h/mcp?team=a&region=eu");
  // In free text (log lines) too.
  CHECK(ava::base::redact("sign in at https://as/authorize?state=abc&x=1 now") ==
        "sign in at https://as/authorize?state=[redacted]&x=1 now");
  CHECK(ava::base::redact("the state: running, code 3") == "the state: running, code 3");
}

TEST_CASE("server arguments lose the values of secret flags and recognisable keys",
          "[log][redact]") {
  const std::vector<std::string> args{"-y",
                                      "@org/server",
                                      "--api-key",
                                      "abc123",
                                      "--token=tok",
                                      "API_KEY=k",
                                      "--password",
                                      "--verbose",
                                      "--db",
                                      "postgresql://u:p@h/db",
                                      "ghp_0123456789abcdefghijklmn",
                                      "--header",
                                      "Authorization: Bearer abcdefgh12345678",
                                      "/home/me/project"};
  CHECK(ava::base::redact_arguments(args) ==
        std::vector<std::string>{
            "-y", "@org/server", "--api-key", "[redacted]", "--token=[redacted]",
            "API_KEY=[redacted]", "--password", "--verbose", "--db", "postgresql://[redacted]@h/db",
            "ghp_[redacted]", "--header", "Authorization: Bearer [redacted]", "/home/me/project"});
}

TEST_CASE("a Secret formats as redacted", "[log]") {
  const ava::base::Secret secret("sk-live-value");
  CHECK(fmt::format("key={}", secret) == "key=[redacted]");
  CHECK(secret.reveal() == "sk-live-value");
}

TEST_CASE("the log file is owner-only and never holds a key", "[log]") {
  ava::test::TempDir tmp;
  const auto file = tmp.path() / "ava.log";
  REQUIRE(ava::base::setup_logging(
      {.level = ava::base::LogLevel::info, .to_stderr = false, .file = file}));
  spdlog::info("calling provider with Authorization: Bearer sk-ant-0123456789abcdefghij");
  spdlog::default_logger()->flush();
  std::ifstream in(file);
  std::stringstream content;
  content << in.rdbuf();
  CHECK(content.str().find("calling provider") != std::string::npos);
  CHECK(content.str().find("0123456789abcdefghij") == std::string::npos);
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  spdlog::set_default_logger(spdlog::null_logger_mt("null"));
}

TEST_CASE("log levels parse by name", "[log]") {
  CHECK(ava::base::parse_log_level("debug") == ava::base::LogLevel::debug);
  CHECK(ava::base::parse_log_level("warning") == ava::base::LogLevel::warn);
  CHECK_FALSE(ava::base::parse_log_level("loud"));
}
