#include <catch2/catch.hpp>

#include "ava/remote/ssh_config.hpp"

using namespace ava;
using remote::SshConfigSources;

namespace {

SshConfigSources sources() {
  SshConfigSources s;
  s.home = "/home/me";
  s.local_user = "me";
  return s;
}

remote::SshTarget resolve(std::string_view destination, std::string_view config) {
  auto parsed = remote::parse_destination(destination);
  REQUIRE(parsed);
  auto target = remote::resolve_target_from_text(*parsed, config, sources());
  REQUIRE(target);
  return *target;
}

}  // namespace

TEST_CASE("destinations: user, host, port, IPv6 in brackets", "[remote]") {
  auto plain = remote::parse_destination("gpu");
  REQUIRE(plain);
  CHECK(plain->host == "gpu");
  CHECK_FALSE(plain->user);
  CHECK_FALSE(plain->port);
  auto full = remote::parse_destination("alice@gpu.example.com:2222");
  REQUIRE(full);
  CHECK(*full->user == "alice");
  CHECK(full->host == "gpu.example.com");
  CHECK(*full->port == 2222);
  auto v6 = remote::parse_destination("[::1]:22");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(remote::to_string(*v6) == "[::1]:22");
  for (const char* bad : {"", "@host", "host:0", "host:70000", "host:x", "::1", "-oProxyCommand=x",
                          "a b", "[::1", "host:", "[[fu]:22", "a]b"}) {
    CAPTURE(bad);
    CHECK_FALSE(remote::parse_destination(bad));
  }
}

TEST_CASE("ssh_config: Host blocks, first value wins, negation", "[remote]") {
  constexpr std::string_view config = R"(
# comment
Host gpu gpu-*
  HostName 10.0.0.7
  User alice
  Port 2200
  IdentityFile ~/.ssh/gpu_ed25519
  IdentitiesOnly yes
Host *.internal !bastion.internal
  ProxyJump bastion.internal
Host *
  User fallback
  Port 22
  IdentityFile %d/.ssh/id_%u_%h
  ServerAliveInterval=30
)";
  auto gpu = resolve("gpu", config);
  CHECK(gpu.host == "10.0.0.7");
  CHECK(gpu.user == "alice");
  CHECK(gpu.port == 2200);
  CHECK(gpu.identities_only);
  CHECK(gpu.server_alive_interval == 30);
  REQUIRE(gpu.identity_files.size() == 2);
  CHECK(gpu.identity_files[0] == "/home/me/.ssh/gpu_ed25519");
  CHECK(gpu.identity_files[1] == "/home/me/.ssh/id_me_10.0.0.7");
  CHECK_FALSE(gpu.proxy_jump);

  auto overridden = resolve("bob@gpu-2:2022", config);
  CHECK(overridden.user == "bob");
  CHECK(overridden.port == 2022);

  auto internal = resolve("db.internal", config);
  REQUIRE(internal.proxy_jump);
  CHECK(*internal.proxy_jump == "bastion.internal");
  CHECK(internal.user == "fallback");
  CHECK_FALSE(resolve("bastion.internal", config).proxy_jump);

  auto other = resolve("elsewhere", "");
  CHECK(other.user == "me");
  CHECK(other.port == 22);
  CHECK(other.host == "elsewhere");
  REQUIRE(other.known_hosts_files.size() == 2);
  CHECK(other.known_hosts_files[0] == "/home/me/.ssh/known_hosts");
}

TEST_CASE("ssh_config: Match blocks, quotes, tokens, bad input", "[remote]") {
  auto matched =
      resolve("box", "Match originalhost box\n  User m\nMatch exec \"true\"\n  Port 9\n");
  CHECK(matched.user == "m");
  CHECK(matched.port == 22);
  CHECK_FALSE(matched.notes.empty());

  auto quoted = resolve(
      "box", "Host box\n  IdentityFile \"/keys/with space\"\n  UserKnownHostsFile /a %d/b\n");
  REQUIRE(quoted.identity_files.size() == 1);
  CHECK(quoted.identity_files[0] == "/keys/with space");
  REQUIRE(quoted.known_hosts_files.size() == 2);
  CHECK(quoted.known_hosts_files[1] == "/home/me/b");

  auto unknown_token = resolve("box", "IdentityFile ~/.ssh/%C\n");
  CHECK(unknown_token.identity_files.empty());
  CHECK_FALSE(unknown_token.notes.empty());

  auto parsed = remote::parse_destination("box");
  REQUIRE(parsed);
  CHECK_FALSE(remote::resolve_target_from_text(*parsed, "Port 99999\n", sources()));
  CHECK_FALSE(remote::resolve_target_from_text(*parsed, "User \"open\n", sources()));
}

TEST_CASE("ssh patterns", "[remote]") {
  CHECK(remote::ssh_pattern_match("*", "anything"));
  CHECK(remote::ssh_pattern_match("gpu-?", "GPU-1"));
  CHECK_FALSE(remote::ssh_pattern_match("gpu-?", "gpu-10"));
  CHECK(remote::ssh_pattern_match("*.example.*", "a.example.com"));
  CHECK(remote::ssh_pattern_match("[127.0.0.1]:*", "[127.0.0.1]:2222"));
  CHECK_FALSE(remote::ssh_pattern_list_match({"*", "!secret"}, "secret"));
  CHECK(remote::ssh_pattern_list_match({"*", "!secret"}, "public"));
  CHECK_FALSE(remote::ssh_pattern_list_match({"!secret"}, "public"));
  // No exponential backtracking on hostile patterns.
  CHECK_FALSE(remote::ssh_pattern_match(std::string(200, '*') + "b", std::string(5000, 'a')));
}
