#include <catch2/catch.hpp>

#include <fstream>

#include "ava/remote/machines.hpp"
#include "ava/remote/probe.hpp"
#include "support/temp_dir.hpp"

using namespace ava;

TEST_CASE("machines.json: add, list, get, remove", "[remote]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path() / "home");
  REQUIRE(home);
  remote::MachineStore store(*home);
  auto empty = store.list();
  REQUIRE(empty);
  CHECK(empty->empty());

  remote::Machine gpu{
      "gpu", "alice@gpu:2222", std::filesystem::path("/keys/k"), remote::SshTransport::openssh, 0,
      ""};
  REQUIRE(store.add(gpu));
  REQUIRE(store.add({"lab", "lab", std::nullopt, remote::SshTransport::libssh2, 0, ""}));
  auto again = store.add(gpu);
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ErrorCode::already_exists);

  auto listed = store.list();
  REQUIRE(listed);
  REQUIRE(listed->size() == 2);
  auto found = store.get("gpu");
  REQUIRE(found);
  CHECK(found->destination == "alice@gpu:2222");
  CHECK(found->transport == remote::SshTransport::openssh);
  CHECK(*found->identity_file == "/keys/k");
  CHECK(found->added_ms > 0);

  CHECK(found->machine_id.empty());
  REQUIRE(store.set_machine_id("gpu", "01930000-aaaa"));
  CHECK(store.get("gpu")->machine_id == "01930000-aaaa");
  CHECK(store.set_machine_id("nope", "x").error().code == ErrorCode::not_found);

  REQUIRE(store.remove("gpu"));
  CHECK(store.get("gpu").error().code == ErrorCode::not_found);
  CHECK(store.remove("gpu").error().code == ErrorCode::not_found);
}

TEST_CASE("machines.json: bad names and a damaged file are errors", "[remote]") {
  test::TempDir dir;
  auto home = base::Home::at(dir.path() / "home");
  REQUIRE(home);
  remote::MachineStore store(*home);
  for (const char* name : {"", "local", ".hidden", "-x", "a/b", "with space"}) {
    CAPTURE(name);
    CHECK_FALSE(store.add({name, "host", std::nullopt, remote::SshTransport::libssh2, 0, ""}));
  }
  CHECK_FALSE(
      store.add({"ok", "-oProxyCommand=evil", std::nullopt, remote::SshTransport::libssh2, 0, ""}));
  std::ofstream(store.file()) << "{\"machines\": [{\"name\": \"x\"}]}";
  auto damaged = store.list();
  REQUIRE_FALSE(damaged);
  CHECK(damaged.error().code == ErrorCode::corrupt);
  // Adding does not overwrite a file it cannot read.
  CHECK_FALSE(store.add({"ok", "host", std::nullopt, remote::SshTransport::libssh2, 0, ""}));
}

TEST_CASE("the probe's answer is read strictly", "[remote]") {
  auto found = remote::parse_probe(
      "os=Linux\narch=x86_64\nhome=/home/a\nava=/home/a/.local/share/ava/current/ava\nversion=ava "
      "0.1.0\n");
  REQUIRE(found);
  CHECK(found->os == "Linux");
  CHECK(found->arch == "x86_64");
  CHECK(*found->ava_version == "ava 0.1.0");
  auto bare = remote::parse_probe("os=Linux\narch=aarch64\nhome=/root\n");
  REQUIRE(bare);
  CHECK_FALSE(bare->ava_path);
  CHECK_FALSE(remote::parse_probe(""));
  CHECK_FALSE(remote::parse_probe("motd text\nos=Linux\narch=x\n"));
  CHECK_FALSE(remote::parse_probe("os=a\narch=b\nhome=c\nava=d\nversion=e\nextra=f\n"));
  CHECK(remote::shell_quote("it's") == "'it'\\''s'");
}
