#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "ava/service/service.hpp"
#include "support/fake_env.hpp"
#include "support/temp_dir.hpp"

using namespace ava;

using test::fake_env;
using test::TempDir;

TEST_CASE("the default home's service is ava-backend, another home's carries its hash",
          "[service]") {
  TempDir user;
  auto default_home = base::Home::at(user.path() / ".ava");
  auto other_home = base::Home::at(user.path() / "work home");
  REQUIRE(default_home);
  REQUIRE(other_home);
  const auto env = fake_env({{"HOME", user.path().string()}});
  auto spec =
      service::service_spec(*default_home, "/usr/bin/ava-backend", service::Manager::systemd, env);
  REQUIRE(spec);
  CHECK(spec->name == "ava-backend");
  CHECK(spec->default_home);
  CHECK(spec->definition == user.path() / ".config/systemd/user/ava-backend.service");
  CHECK(service::systemd_unit(*spec).find("AVA_HOME") == std::string::npos);

  auto other =
      service::service_spec(*other_home, "/usr/bin/ava-backend", service::Manager::systemd, env);
  REQUIRE(other);
  CHECK_FALSE(other->default_home);
  CHECK(other->name.starts_with("ava-backend-"));
  CHECK(other->name.size() == std::string("ava-backend-").size() + 8);
  // The same home always gets the same name; XDG_CONFIG_HOME is honoured.
  auto again =
      service::service_spec(*other_home, "/usr/bin/ava-backend", service::Manager::systemd,
                            fake_env({{"HOME", user.path().string()},
                                      {"XDG_CONFIG_HOME", (user.path() / "cfg").string()}}));
  REQUIRE(again);
  CHECK(again->name == other->name);
  CHECK(again->definition == user.path() / "cfg/systemd/user" / (other->name + ".service"));
}

TEST_CASE("a unit quotes what systemd would read specially", "[service][security]") {
  TempDir user;
  auto home = base::Home::at(user.path() / "100% $HOME \"q\"");
  REQUIRE(home);
  auto spec = service::service_spec(*home, "/opt/my ava/ava-backend", service::Manager::systemd,
                                    fake_env({{"HOME", user.path().string()}}));
  REQUIRE(spec);
  const auto unit = service::systemd_unit(*spec);
  CHECK(unit.find("ExecStart=\"/opt/my ava/ava-backend\" --log-level info\n") != std::string::npos);
  CHECK(unit.find("Environment=\"AVA_HOME=" + user.path().string() +
                  "/100%% $$HOME \\\"q\\\"\"\n") != std::string::npos);
  CHECK(unit.find("Restart=on-failure\n") != std::string::npos);
  CHECK(unit.find("WantedBy=default.target\n") != std::string::npos);
}

TEST_CASE("a plist escapes its strings as XML", "[service][security]") {
  TempDir user;
  auto home = base::Home::at(user.path() / "a&b<c>");
  REQUIRE(home);
  auto spec = service::service_spec(*home, "/opt/ava/ava-backend", service::Manager::launchd,
                                    fake_env({{"HOME", user.path().string()}}));
  REQUIRE(spec);
  CHECK(spec->definition.parent_path() == user.path() / "Library/LaunchAgents");
  const auto plist = service::launchd_plist(*spec);
  CHECK(plist.find("a&amp;b&lt;c&gt;") != std::string::npos);
  CHECK(plist.find("a&b<c>") == std::string::npos);
  CHECK(plist.find("<key>SuccessfulExit</key>") != std::string::npos);
}

TEST_CASE("paths a definition cannot hold are refused", "[service][security]") {
  TempDir user;
  auto home = base::Home::at(user.path() / ".ava");
  REQUIRE(home);
  const auto env = fake_env({{"HOME", user.path().string()}});
  auto relative = service::service_spec(*home, "bin/ava-backend", service::Manager::systemd, env);
  REQUIRE_FALSE(relative);
  CHECK(relative.error().message.find("absolute") != std::string::npos);
  auto newline = service::service_spec(*home, "/opt/ava\n[Service]\nExecStartPre=/bin/evil",
                                       service::Manager::systemd, env);
  REQUIRE_FALSE(newline);
  CHECK(newline.error().code == ErrorCode::invalid_argument);
  auto no_home =
      service::service_spec(*home, "/opt/ava/ava-backend", service::Manager::systemd, fake_env({}));
  REQUIRE_FALSE(no_home);
}
