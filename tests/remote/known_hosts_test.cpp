#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "ava/base/base64.hpp"
#include "ava/remote/known_hosts.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace fs = std::filesystem;

namespace {

// A syntactically valid ed25519 blob: type name, then 32 key bytes.
std::string blob_of(char fill) {
  std::string type = "ssh-ed25519";
  std::string blob =
      std::string("\0\0\0\x0b", 4) + type + std::string("\0\0\0\x20", 4) + std::string(32, fill);
  return blob;
}

remote::HostKey key_of(char fill) {
  auto key = remote::host_key_from_blob(blob_of(fill));
  REQUIRE(key);
  return *key;
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

}  // namespace

TEST_CASE("host key blobs and fingerprints", "[remote]") {
  auto key = key_of('A');
  CHECK(key.type == "ssh-ed25519");
  auto fingerprint = remote::sha256_fingerprint(key.blob);
  CHECK(fingerprint.starts_with("SHA256:"));
  CHECK(fingerprint.size() == 7 + 43);  // 32 bytes, unpadded base64
  CHECK(fingerprint.find('=') == std::string::npos);
  CHECK_FALSE(remote::host_key_from_blob(""));
  CHECK_FALSE(remote::host_key_from_blob(std::string("\0\0\0\xff", 4) + "x"));
  CHECK_FALSE(remote::host_key_from_blob(std::string("\0\0\0\x03", 4) + "a b"));
  CHECK(remote::known_hosts_name("Host", 22) == "host");
  CHECK(remote::known_hosts_name("127.0.0.1", 2222) == "[127.0.0.1]:2222");
}

TEST_CASE("known_hosts: plain, pattern, hashed, changed, revoked", "[remote]") {
  test::TempDir dir;
  fs::path file = dir.path() / "known_hosts";
  auto good = key_of('A');
  auto other = key_of('B');
  std::string good64 = base::base64_encode(good.blob);
  std::string other64 = base::base64_encode(other.blob);
  write(file, "# comment\n\nplain.example,10.0.0.1 ssh-ed25519 " + good64 +
                  "\n*.wild.example ssh-ed25519 " + good64 +
                  " comment here\n"
                  "[porty]:2222 ssh-ed25519 " +
                  good64 +
                  "\n"
                  "garbage line\n"
                  "bad.example ssh-ed25519 !!notbase64\n"
                  "@revoked * ssh-ed25519 " +
                  other64 + "\n");
  std::vector<fs::path> files{file, dir.path() / "missing"};
  using remote::HostKeyStatus;
  CHECK(remote::check_host_key(files, "plain.example", 22, good).status == HostKeyStatus::known);
  CHECK(remote::check_host_key(files, "10.0.0.1", 22, good).status == HostKeyStatus::known);
  CHECK(remote::check_host_key(files, "a.wild.example", 22, good).status == HostKeyStatus::known);
  CHECK(remote::check_host_key(files, "porty", 2222, good).status == HostKeyStatus::known);
  CHECK(remote::check_host_key(files, "porty", 22, good).status == HostKeyStatus::unknown);
  CHECK(remote::check_host_key(files, "nobody", 22, good).status == HostKeyStatus::unknown);
  auto changed = remote::check_host_key(files, "plain.example", 22, key_of('C'));
  CHECK(changed.status == HostKeyStatus::changed);
  REQUIRE(changed.known.size() == 1);
  CHECK(changed.known[0].fingerprint == remote::sha256_fingerprint(good.blob));
  CHECK(changed.known[0].where == file.string() + ":3");
  auto message = remote::describe_host_key_problem("plain.example", 22, key_of('C'), changed);
  CHECK(message.find("HAS CHANGED") != std::string::npos);
  CHECK(message.find(remote::sha256_fingerprint(good.blob)) != std::string::npos);
  CHECK(message.find(remote::sha256_fingerprint(key_of('C').blob)) != std::string::npos);
  CHECK(remote::check_host_key(files, "plain.example", 22, other).status == HostKeyStatus::revoked);
}

TEST_CASE("known_hosts: accepted keys are appended hashed, private", "[remote]") {
  test::TempDir dir;
  fs::path file = dir.path() / "ssh" / "known_hosts";
  auto key = key_of('Z');
  CHECK(remote::check_host_key({file}, "127.0.0.1", 2222, key).status ==
        remote::HostKeyStatus::unknown);
  REQUIRE(remote::add_known_host(file, "127.0.0.1", 2222, key));
  CHECK(remote::check_host_key({file}, "127.0.0.1", 2222, key).status ==
        remote::HostKeyStatus::known);
  CHECK(remote::check_host_key({file}, "127.0.0.1", 22, key).status ==
        remote::HostKeyStatus::unknown);
  CHECK(remote::known_key_types({file}, "127.0.0.1", 2222) ==
        std::vector<std::string>{"ssh-ed25519"});
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.starts_with("|1|"));
  CHECK(text.find("127.0.0.1") == std::string::npos);
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  // A file without a final newline still gets a separate line.
  write(file, text.substr(0, text.size() - 1));
  REQUIRE(remote::add_known_host(file, "other", 22, key));
  CHECK(remote::check_host_key({file}, "127.0.0.1", 2222, key).status ==
        remote::HostKeyStatus::known);
  CHECK(remote::check_host_key({file}, "other", 22, key).status == remote::HostKeyStatus::known);
}
