#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "ava/base/open_url.hpp"
#include "support/temp_dir.hpp"

using ava::base::check_browser_url;
using ava::base::open_url;
using ava::base::OpenUrlOptions;

namespace {

ava::base::EnvLookup display(bool present) {
  return [present](const char* name) -> std::optional<std::string> {
    if (present && std::string_view(name) == "DISPLAY") return ":0";
    return std::nullopt;
  };
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Gone or a zombie: a zombie's state in /proc/PID/stat is Z.
bool running_or_zombie(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  return static_cast<bool>(stat);
}

}  // namespace

TEST_CASE("open_url takes only http and https URLs", "[open_url]") {
  for (const char* good :
       {"https://auth.example.com/authorize?x=1", "http://127.0.0.1:8/cb", "HTTPS://Example.com"}) {
    CAPTURE(good);
    CHECK(check_browser_url(good).has_value());
  }
  for (const char* bad :
       {"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
        "ftp://example.com/", "https://", "http:///path", "https://a.example/x y",
        "https://a.example/\nx", "-https://a.example", "", "xdg-open"}) {
    CAPTURE(bad);
    auto refused = open_url(bad, OpenUrlOptions{.program = "/bin/false", .env = display(true)});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ava::ErrorCode::invalid_argument);
  }
}

TEST_CASE("open_url needs a display", "[open_url]") {
  auto refused = open_url("https://example.com",
                          OpenUrlOptions{.program = "/bin/true", .env = display(false)});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ava::ErrorCode::unavailable);
}

TEST_CASE("open_url starts the opener detached and reaps it", "[open_url]") {
  ava::test::TempDir dir;
  const auto seen = dir.path() / "seen";
  const auto opener = dir.path() / "opener";
  {
    std::ofstream script(opener);
    script << "#!/bin/sh\nprintf '%s %s' \"$$\" \"$1\" > " << seen.string() << ".tmp\nmv "
           << seen.string() << ".tmp " << seen.string() << "\n";
  }
  ::chmod(opener.c_str(), 0700);
  const std::string url = "https://example.com/authorize?state=abc";
  REQUIRE(open_url(url, OpenUrlOptions{.program = opener.string(), .env = display(true)}));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!std::filesystem::exists(seen) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto text = read_text(seen);
  const auto space = text.find(' ');
  REQUIRE(space != std::string::npos);
  CHECK(text.substr(space + 1) == url);
  const auto pid = text.substr(0, space);
  // Reaped by its waiting thread: no zombie stays behind.
  while (running_or_zombie(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK_FALSE(running_or_zombie(pid));
}

TEST_CASE("open_url reports an opener that cannot start", "[open_url]") {
  auto failed = open_url("https://example.com",
                         OpenUrlOptions{.program = "/nonexistent/opener", .env = display(true)});
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().code == ava::ErrorCode::not_found);
}
