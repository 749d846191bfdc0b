// Key sign-in: ssh-agent's identities, then the identity files, with the
// reasons each one was not used kept for the message a person reads.
#include <openssl/crypto.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "ava/base/base64.hpp"
#include "ava/base/private_file.hpp"
#include "remote/ssh_io.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

struct KeyFile {
  std::string type;  // "ssh-ed25519", "ssh-rsa", "sk-ssh-ed25519@openssh.com", "" unknown
  bool encrypted = false;
};

std::uint32_t read_u32(std::string_view& data) {
  if (data.size() < 4) {
    data = {};
    return 0;
  }
  auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(data[i]));
  };
  std::uint32_t value = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
  data.remove_prefix(4);
  return value;
}

std::string_view read_string(std::string_view& data) {
  std::uint32_t length = read_u32(data);
  if (length > data.size()) {
    data = {};
    return {};
  }
  std::string_view out = data.substr(0, length);
  data.remove_prefix(length);
  return out;
}

// The key's type and whether it needs a passphrase, from the .pub beside it
// or the private key's own (unencrypted) header.
KeyFile inspect_key_file(const fs::path& file) {
  KeyFile info;
  fs::path pub = file;
  pub += ".pub";
  if (auto text = base::read_file_limited(pub, 64 << 10)) {
    info.type = text->substr(0, text->find_first_of(" \t\n"));
  }
  auto text = base::read_file_limited(file, 64 << 10);
  if (!text) return info;
  constexpr std::string_view openssh_begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  if (auto begin = text->find(openssh_begin); begin != std::string::npos) {
    std::size_t end = text->find("-----END", begin + openssh_begin.size());
    std::string body;
    for (char c : text->substr(begin + openssh_begin.size(), end - begin - openssh_begin.size())) {
      if (c != '\n' && c != '\r' && c != ' ') body += c;
    }
    auto decoded = base::base64_decode(body, 64 << 10);
    std::string_view data = decoded ? std::string_view(*decoded) : std::string_view{};
    constexpr std::string_view magic{"openssh-key-v1\0", 15};
    if (data.starts_with(magic)) {
      data.remove_prefix(magic.size());
      info.encrypted = read_string(data) != "none";  // cipher name
      read_string(data);                             // kdf name
      read_string(data);                             // kdf options
      read_u32(data);                                // number of keys
      std::string_view public_key = read_string(data);
      std::string_view type = read_string(public_key);
      if (!type.empty()) info.type = std::string(type);
    }
    return info;
  }
  info.encrypted = text->find("ENCRYPTED") != std::string::npos;
  if (info.type.empty()) {
    if (text->find("BEGIN RSA PRIVATE KEY") != std::string::npos) info.type = "ssh-rsa";
    if (text->find("BEGIN EC PRIVATE KEY") != std::string::npos) info.type = "ecdsa";
  }
  return info;
}

struct Attempts {
  std::vector<std::string> lines;
  bool rsa_refused = false;
  bool fido_skipped = false;
};

// With IdentitiesOnly, the agent's keys that belong to an identity file.
std::set<std::string> identity_blobs(const std::vector<fs::path>& files) {
  std::set<std::string> blobs;
  for (const auto& file : files) {
    fs::path pub = file;
    pub += ".pub";
    auto text = base::read_file_limited(pub, 64 << 10);
    if (!text) continue;
    std::size_t start = text->find(' ');
    if (start == std::string::npos) continue;
    std::size_t end = text->find_first_of(" \n", start + 1);
    auto blob = base::base64_decode(text->substr(start + 1, end - start - 1), 16 << 10);
    if (blob) blobs.insert(*blob);
  }
  return blobs;
}

asio::awaitable<Result<bool>> try_agent(SshSession::State& state, Clock::time_point deadline,
                                        Attempts& attempts) {
  const auto& target = state.target;
  if (target.identity_agent == "none") co_return false;
  LIBSSH2_AGENT* agent = libssh2_agent_init(state.session);
  if (agent == nullptr) co_return false;
  struct AgentGuard {
    LIBSSH2_AGENT* agent;
    ~AgentGuard() {
      libssh2_agent_disconnect(agent);
      libssh2_agent_free(agent);
    }
  } guard{agent};
  if (target.identity_agent) libssh2_agent_set_identity_path(agent, target.identity_agent->c_str());
  if (libssh2_agent_connect(agent) != 0 || libssh2_agent_list_identities(agent) != 0) {
    co_return false;
  }
  auto allowed = identity_blobs(target.identity_files);
  libssh2_agent_publickey* identity = nullptr;
  libssh2_agent_publickey* previous = nullptr;
  while (libssh2_agent_get_identity(agent, &identity, previous) == 0) {
    previous = identity;
    std::string blob(reinterpret_cast<const char*>(identity->blob), identity->blob_len);
    if (target.identities_only && !allowed.contains(blob)) continue;
    auto key = host_key_from_blob(blob);
    std::string type = key ? key->type : "unknown";
    std::string name = "ssh-agent key " + type + " " + sha256_fingerprint(blob);
    if (type.starts_with("sk-")) {
      attempts.fido_skipped = true;
      attempts.lines.push_back(name + ": a FIDO security key, which libssh2 cannot use");
      continue;
    }
    AVA_CO_TRY(long rc, co_await retry(state, deadline, [&] {
                 return libssh2_agent_userauth(agent, target.user.c_str(), identity);
               }));
    if (rc == 0) {
      state.signed_in_with = name;
      co_return true;
    }
    attempts.lines.push_back(name + ": refused");
    if (type == "ssh-rsa") attempts.rsa_refused = true;
  }
  co_return false;
}

asio::awaitable<Result<bool>> try_key_files(SshSession::State& state, const ConnectOptions& options,
                                            Clock::time_point deadline, Attempts& attempts) {
  const auto& target = state.target;
  for (const auto& file : target.identity_files) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    KeyFile info = inspect_key_file(file);
    std::string name = file.string() + (info.type.empty() ? "" : " (" + info.type + ")");
    if (info.type.starts_with("sk-")) {
      attempts.fido_skipped = true;
      attempts.lines.push_back(name + ": a FIDO security key, which libssh2 cannot use");
      continue;
    }
    std::optional<std::string> passphrase;
    if (info.encrypted) {
      if (options.passphrase) passphrase = options.passphrase(file);
      if (!passphrase) {
        attempts.lines.push_back(name +
                                 ": encrypted and no passphrase given (add it to"
                                 " ssh-agent, or enter it when asked)");
        continue;
      }
    }
    fs::path pub = file;
    pub += ".pub";
    bool has_pub = fs::is_regular_file(pub, ec);
    AVA_CO_TRY(long rc, co_await retry(state, deadline, [&] {
                 return libssh2_userauth_publickey_fromfile_ex(
                     state.session, target.user.c_str(), static_cast<unsigned>(target.user.size()),
                     has_pub ? pub.c_str() : nullptr, file.c_str(),
                     passphrase ? passphrase->c_str() : nullptr);
               }));
    if (passphrase) OPENSSL_cleanse(passphrase->data(), passphrase->size());
    if (rc == 0) {
      state.signed_in_with = name;
      co_return true;
    }
    if (rc == LIBSSH2_ERROR_FILE) {
      attempts.lines.push_back(name + (info.encrypted ? ": wrong passphrase, or" : ":") +
                               " libssh2 could not read the key (" + last_error(state) + ")");
    } else {
      attempts.lines.push_back(name + ": refused");
      if (info.type == "ssh-rsa") attempts.rsa_refused = true;
    }
  }
  co_return false;
}

std::string failure_message(const SshTarget& target, const Attempts& attempts) {
  std::string who = target.user + "@" + target.host + ":" + std::to_string(target.port);
  std::string text = "could not sign in to " + who;
  if (attempts.lines.empty()) {
    text +=
        ": no key to sign in with (no ssh-agent identities, and none of the identity files"
        " exists). Create one with `ssh-keygen -t ed25519` and add its .pub to the remote's"
        " ~/.ssh/authorized_keys";
  } else {
    text += "; tried:";
    for (const auto& line : attempts.lines) text += "\n  " + line;
  }
  if (attempts.rsa_refused) {
    text +=
        "\nAn RSA key was refused. libssh2 1.10 signs RSA keys only with SHA-1 (ssh-rsa),"
        " which OpenSSH 8.8 and later refuse, so even an authorized RSA key fails here: use"
        " an ed25519 or ecdsa key, or this machine's openssh transport (--transport openssh)";
  }
  if (attempts.fido_skipped) {
    text += "\nFIDO keys (sk-*) need the openssh transport (--transport openssh)";
  }
  return text;
}

}  // namespace

asio::awaitable<Result<void>> sign_in(SshSession::State& state, const ConnectOptions& options,
                                      Clock::time_point deadline) {
  const auto& user = state.target.user;
  const char* methods = nullptr;
  for (;;) {
    methods =
        libssh2_userauth_list(state.session, user.c_str(), static_cast<unsigned>(user.size()));
    if (methods != nullptr) break;
    if (libssh2_userauth_authenticated(state.session) != 0) {
      state.signed_in_with = "no authentication (the server asked for none)";
      co_return Result<void>{};
    }
    if (libssh2_session_last_errno(state.session) != LIBSSH2_ERROR_EAGAIN) {
      co_return fail(ErrorCode::protocol, "asking the server how to sign in: " + last_error(state));
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
  std::string offered = methods;
  if (offered.find("publickey") == std::string::npos) {
    co_return fail(ErrorCode::permission_denied,
                   state.target.host + " offers sign-in by " + offered +
                       " only; Ava signs in with keys (ssh-agent or IdentityFile), or use the"
                       " openssh transport (--transport openssh)");
  }
  Attempts attempts;
  AVA_CO_TRY(bool by_agent, co_await try_agent(state, deadline, attempts));
  if (by_agent) co_return Result<void>{};
  AVA_CO_TRY(bool by_file, co_await try_key_files(state, options, deadline, attempts));
  if (by_file) co_return Result<void>{};
  co_return fail(ErrorCode::permission_denied, failure_message(state.target, attempts));
}

}  // namespace ava::remote
