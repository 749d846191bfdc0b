#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>

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
