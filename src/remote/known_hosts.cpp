// known_hosts in OpenSSH's format: reading every entry form, appending
// hashed ones.
#include "ava/remote/known_hosts.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "ava/base/base64.hpp"
#include "ava/base/constant_time.hpp"
#include "ava/base/home.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/remote/ssh_config.hpp"

namespace ava::remote {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_known_hosts_bytes = 8 << 20;
constexpr std::size_t max_key_bytes = 16 << 10;

std::string hmac_sha1(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
  return std::string(reinterpret_cast<char*>(out), length);
}

// `|1|salt|hash`: HMAC-SHA1 of the name keyed with the salt.
bool hashed_name_matches(std::string_view entry, std::string_view name) {
  entry.remove_prefix(3);
  std::size_t bar = entry.find('|');
  if (bar == std::string_view::npos) return false;
  auto salt = base::base64_decode(entry.substr(0, bar), 64);
  auto hash = base::base64_decode(entry.substr(bar + 1), 64);
  if (!salt || !hash) return false;
  return base::constant_time_equal(hmac_sha1(*salt, name), *hash);
}

bool names_match(std::string_view names, std::string_view name) {
  if (names.starts_with("|1|")) return hashed_name_matches(names, name);
  std::vector<std::string> patterns;
  std::size_t start = 0;
  while (start <= names.size()) {
    std::size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    if (comma > start) patterns.emplace_back(names.substr(start, comma - start));
    start = comma + 1;
  }
  return ssh_pattern_list_match(patterns, name);
}

struct Entry {
  std::string marker;  // "", "@revoked", "@cert-authority"
  std::string names;
  std::string type;
  std::string blob;
  std::string where;
};

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size() && fields.size() < 5) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// Every entry of the files that names host:port. Malformed lines are
// skipped, as ssh skips them.
std::vector<Entry> entries_for(const std::vector<fs::path>& files, std::string_view name) {
  std::vector<Entry> out;
  for (const auto& file : files) {
    auto content = base::read_file_limited(file, max_known_hosts_bytes);
    if (!content) continue;
    std::string_view text = *content;
    std::size_t line_number = 0;
    while (!text.empty()) {
      std::size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
      ++line_number;
      auto fields = fields_of(line);
      if (fields.empty() || fields[0].starts_with('#')) continue;
      Entry entry;
      std::size_t next = 0;
      if (fields[0].starts_with('@')) entry.marker = std::string(fields[next++]);
      if (fields.size() < next + 3) continue;
      if (!names_match(fields[next], name)) continue;
      entry.names = std::string(fields[next]);
      entry.type = std::string(fields[next + 1]);
      auto blob = base::base64_decode(fields[next + 2], max_key_bytes);
      if (!blob) continue;
      entry.blob = std::move(*blob);
      entry.where = file.string() + ":" + std::to_string(line_number);
      out.push_back(std::move(entry));
    }
  }
  return out;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

Result<HostKey> host_key_from_blob(std::string blob) {
  if (blob.size() < 4 || blob.size() > max_key_bytes) {
    return fail(ErrorCode::parse, "a host key blob of " + std::to_string(blob.size()) + " bytes");
  }
  auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(blob[i]));
  };
  std::uint32_t length = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
  if (length == 0 || length > 64 || length > blob.size() - 4) {
    return fail(ErrorCode::parse, "a host key blob without a type name");
  }
  HostKey key;
  key.type = blob.substr(4, length);
  for (char c : key.type) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '@' && c != '.') {
      return fail(ErrorCode::parse, "a host key type with unexpected characters");
    }
  }
  key.blob = std::move(blob);
  return key;
}

std::string sha256_fingerprint(std::string_view blob) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(blob.data(), blob.size(), digest, &length, EVP_sha256(), nullptr);
  std::string encoded =
      base::base64_encode(std::string_view(reinterpret_cast<char*>(digest), length));
  while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();
  return "SHA256:" + encoded;
}

std::string known_hosts_name(std::string_view host, std::uint16_t port) {
  std::string name = lowercase(host);
  if (port == 22) return name;
  return "[" + name + "]:" + std::to_string(port);
}

HostKeyCheck check_host_key(const std::vector<fs::path>& files, std::string_view host,
                            std::uint16_t port, const HostKey& key) {
  HostKeyCheck check;
  bool matched = false;
  for (const auto& entry : entries_for(files, known_hosts_name(host, port))) {
    if (entry.marker == "@revoked") {
      if (entry.blob == key.blob) {
        check.status = HostKeyStatus::revoked;
        check.known = {KnownKey{entry.type, sha256_fingerprint(entry.blob), entry.where}};
        return check;
      }
      continue;
    }
    if (!entry.marker.empty()) continue;  // @cert-authority: host certificates are not used
    check.known.push_back(KnownKey{entry.type, sha256_fingerprint(entry.blob), entry.where});
    if (entry.blob == key.blob) matched = true;
  }
  if (matched) {
    check.status = HostKeyStatus::known;
  } else {
    check.status = check.known.empty() ? HostKeyStatus::unknown : HostKeyStatus::changed;
  }
  return check;
}

std::vector<std::string> known_key_types(const std::vector<fs::path>& files, std::string_view host,
                                         std::uint16_t port) {
  std::vector<std::string> types;
  for (const auto& entry : entries_for(files, known_hosts_name(host, port))) {
    if (entry.marker.empty() && std::ranges::find(types, entry.type) == types.end()) {
      types.push_back(entry.type);
    }
  }
  return types;
}

Result<void> add_known_host(const fs::path& file, std::string_view host, std::uint16_t port,
                            const HostKey& key) {
  unsigned char salt[20];
  if (RAND_bytes(salt, sizeof salt) != 1) {
    return fail(ErrorCode::internal, "no random bytes for a known_hosts salt");
  }
  std::string salt_bytes(reinterpret_cast<char*>(salt), sizeof salt);
  std::string line = "|1|" + base::base64_encode(salt_bytes) + "|" +
                     base::base64_encode(hmac_sha1(salt_bytes, known_hosts_name(host, port))) +
                     " " + key.type + " " + base::base64_encode(key.blob) + "\n";
  if (file.has_parent_path()) AVA_TRY_VOID(base::ensure_private_dir(file.parent_path()));
  base::UniqueFd fd(::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return base::fail_errno("open " + file.string(), errno);
  // A file that does not end in a newline would glue the entry to its last line.
  struct stat info {};
  if (::fstat(fd.get(), &info) == 0 && info.st_size > 0) {
    base::UniqueFd reader(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    char last = '\n';
    if (reader.valid() && ::pread(reader.get(), &last, 1, info.st_size - 1) == 1 && last != '\n') {
      line.insert(line.begin(), '\n');
    }
  }
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t written = ::write(fd.get(), rest.data(), rest.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return base::fail_errno("write " + file.string(), errno);
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::fsync(fd.get()) != 0) return base::fail_errno("fsync " + file.string(), errno);
  return {};
}

std::string describe_host_key_problem(std::string_view host, std::uint16_t port, const HostKey& key,
                                      const HostKeyCheck& check) {
  std::string name = known_hosts_name(host, port);
  std::string fingerprint = sha256_fingerprint(key.blob);
  switch (check.status) {
    case HostKeyStatus::known: return {};
    case HostKeyStatus::unknown:
      return "the host key of " + name + " is not known yet: " + key.type + " " + fingerprint +
             ". Compare it with the server's (`ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` there)"
             " and accept it with --accept-host-key " +
             fingerprint;
    case HostKeyStatus::revoked:
      return "the host key of " + name + " (" + fingerprint + ") is marked @revoked in " +
             check.known.front().where + "; refusing to connect";
    case HostKeyStatus::changed: {
      std::string text = "the host key of " + name + " HAS CHANGED: the server offers " + key.type +
                         " " + fingerprint + ", known_hosts holds";
      for (const auto& known : check.known) {
        text += " " + known.type + " " + known.fingerprint + " (" + known.where + ")";
      }
      return text +
             ". Someone may be intercepting the connection, or the host was"
             " reinstalled. Refusing to connect; if the change is expected, remove the"
             " old entry (`ssh-keygen -R '" +
             name + "'`) and accept the new key";
    }
  }
  return {};
}

}  // namespace ava::remote
