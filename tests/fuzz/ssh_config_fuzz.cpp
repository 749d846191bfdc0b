// The SSH-side parsers on hostile text: the first line as a machine address
// (`[user@]host[:port]`), the rest as an ssh_config file, as a known_hosts
// file and as a machine's answer to the probe.
//
// Checks: a parsed destination has a non-empty host, no leading '-' and
// prints back to an address that parses to the same thing; resolution never
// throws, gives a port in 1-65535 and bounded notes; a known_hosts file of
// any bytes yields a status, and an entry that names the host with the key
// is found; the probe's answer is refused or has os and arch.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ava/base/base64.hpp"
#include "ava/remote/known_hosts.hpp"
#include "ava/remote/probe.hpp"
#include "ava/remote/ssh_config.hpp"
#include "fuzz/fuzz_check.hpp"

using namespace ava;  // NOLINT(google-build-using-namespace): one short file

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const auto newline = input.find('\n');
  const std::string_view address = input.substr(0, newline);
  const std::string_view rest = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  remote::SshConfigSources sources;
  sources.home = "/nonexistent-fuzz-home";
  sources.local_user = "fuzz";
  auto destination = remote::parse_destination(address);
  if (destination) {
    FUZZ_CHECK(!destination->host.empty() && !destination->host.starts_with('-'));
    auto again = remote::parse_destination(remote::to_string(*destination));
    FUZZ_CHECK(again && again->host == destination->host && again->port == destination->port &&
               again->user == destination->user);
  } else {
    destination = remote::SshDestination{"fuzz-host", std::nullopt, std::nullopt};
  }
  if (auto target = remote::resolve_target_from_text(*destination, rest, sources)) {
    FUZZ_CHECK(target->port >= 1 && !target->host.empty() && !target->user.empty());
    FUZZ_CHECK(target->notes.size() <= 64 && target->identity_files.size() <= 100);
  }

  // The rest as a known_hosts file, plus one line naming the host with a key.
  static const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                            ("ava-fuzz-known-hosts-" + std::to_string(::getpid()));
  std::string key_blob =
      std::string("\0\0\0\x0b", 4) + "ssh-ed25519" + std::string("\0\0\0\x04", 4) + "abcd";
  auto key = remote::host_key_from_blob(key_blob);
  FUZZ_CHECK(key.has_value());
  {
    std::ofstream out(file, std::ios::trunc | std::ios::binary);
    out << rest << "\n[fuzz-host]:2222 ssh-ed25519 " << base::base64_encode(key_blob) << "\n";
  }
  auto check = remote::check_host_key({file}, "fuzz-host", 2222, *key);
  FUZZ_CHECK(check.status == remote::HostKeyStatus::known ||
             check.status == remote::HostKeyStatus::revoked);
  (void)remote::check_host_key({file}, std::string(address), 22, *key);
  (void)remote::host_key_from_blob(std::string(rest));

  if (auto probe = remote::parse_probe(rest)) {
    FUZZ_CHECK(!probe->os.empty() && !probe->arch.empty());
  }
  return 0;
}
