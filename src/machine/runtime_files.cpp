#include "ava/machine/runtime_files.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include <nlohmann/json.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"

namespace ava::machine {
namespace {

constexpr std::size_t small_file_limit = std::size_t{64} * 1024;

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "";
  return name.data();
}

Result<nlohmann::json> read_json(const std::filesystem::path& path) {
  AVA_TRY(const std::string text, base::read_file_limited(path, small_file_limit));
  auto document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return fail(ErrorCode::parse, path.string() + " is not a JSON object");
  }
  return document;
}

}  // namespace

Result<MachineIdentity> load_or_create_machine(const base::Home& home) {
  const auto path = home.file("machine.json");
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto document = read_json(path);
    if (document) {
      MachineIdentity identity{.machine_id = document->value("machineId", ""),
                               .hostname = document->value("hostname", ""),
                               .created_ms = document->value("createdMs", std::int64_t{0})};
      if (identity.machine_id.empty())
        return fail(ErrorCode::parse, path.string() + " has no machineId");
      return identity;
    }
    if (document.error().code != ErrorCode::not_found) return std::unexpected(document.error());
    const MachineIdentity identity{
        .machine_id = base::new_id(), .hostname = host_name(), .created_ms = base::unix_ms_now()};
    const nlohmann::json created{{"machineId", identity.machine_id},
                                 {"hostname", identity.hostname},
                                 {"createdMs", identity.created_ms}};
    auto written = base::create_private_file(path, created.dump(2) + "\n");
    if (written) return identity;
    // Another process created it first: read theirs.
    if (written.error().code != ErrorCode::already_exists) return std::unexpected(written.error());
  }
  return fail(ErrorCode::io, "cannot read or create " + path.string());
}

Result<void> write_backend_file(const base::Home& home, const BackendEndpoint& endpoint) {
  const nlohmann::json document{{"pid", endpoint.pid},
                                {"port", endpoint.port},
                                {"url", endpoint.url()},
                                {"token", endpoint.token},
                                {"version", endpoint.version},
                                {"machineId", endpoint.machine_id},
                                {"startedMs", endpoint.started_ms}};
  return base::write_private_file(home.file(backend_file_name), document.dump(2) + "\n");
}

Result<BackendEndpoint> parse_backend_file(std::string_view text, std::string_view origin) {
  auto document = base::parse_json(text);
  if (!document)
    return fail(ErrorCode::parse, std::string(origin) + ": " + document.error().message);
  BackendEndpoint endpoint;
  auto pid = base::json_field<pid_t>(*document, "pid");
  auto port = base::json_field<std::uint16_t>(*document, "port");
  auto token = base::json_field<std::string>(*document, "token");
  if (!pid || !port || !token || *port == 0 || token->empty()) {
    return fail(ErrorCode::parse, std::string(origin) + ": expected pid, port and token");
  }
  endpoint.pid = *pid;
  endpoint.port = *port;
  endpoint.token = *token;
  endpoint.version = base::json_field<std::string>(*document, "version").value_or("");
  endpoint.machine_id = base::json_field<std::string>(*document, "machineId").value_or("");
  endpoint.started_ms = base::json_field<std::int64_t>(*document, "startedMs").value_or(0);
  return endpoint;
}

Result<BackendEndpoint> read_backend_file(const base::Home& home) {
  const auto path = home.file(backend_file_name);
  AVA_TRY(const auto text, base::read_file_limited(path, 64 * 1024));
  return parse_backend_file(text, path.string());
}

void remove_backend_file(const base::Home& home) {
  std::error_code ignored;
  std::filesystem::remove(home.file(backend_file_name), ignored);
}

Result<std::string> new_bearer_token() {
  std::array<unsigned char, 32> bytes{};
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return base::fail_errno("getrandom", errno);
    filled += static_cast<std::size_t>(got);
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string token;
  for (const unsigned char byte : bytes) {
    token.push_back(digits[byte >> 4]);
    token.push_back(digits[byte & 0xF]);
  }
  return token;
}

}  // namespace ava::machine
