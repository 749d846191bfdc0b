// machines.json: the remote machines this client knows how to reach.
#include "ava/remote/machines.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cctype>

#include "ava/base/clock.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/remote/ssh_config.hpp"

namespace ava::remote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t max_file_bytes = 4 << 20;
constexpr std::size_t max_machines = 1000;

// Read-modify-write under an exclusive lock, so the desktop and `ava machine`
// adding at the same time both land.
class StoreLock {
 public:
  static Result<StoreLock> take(const fs::path& store) {
    fs::path path = store;
    path += ".lock";
    base::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd.valid()) return base::fail_errno("open " + path.string(), errno);
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) return base::fail_errno("lock " + path.string(), errno);
    }
    return StoreLock(std::move(fd));
  }

 private:
  explicit StoreLock(base::UniqueFd fd) : fd_(std::move(fd)) {}
  base::UniqueFd fd_;
};

Result<Machine> machine_from_json(const json& entry, const fs::path& file) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::corrupt, file.string() + ": a machine entry " + std::string(why));
  };
  if (!entry.is_object()) return bad("is not an object");
  Machine machine;
  auto name = base::json_field<std::string>(entry, "name");
  auto destination = base::json_field<std::string>(entry, "destination");
  auto transport = base::json_field<std::string>(entry, "transport");
  if (!name || !check_machine_name(*name)) return bad("has no valid name");
  if (!destination || !parse_destination(*destination)) return bad("has no valid destination");
  machine.name = *name;
  machine.destination = *destination;
  if (auto identity = base::json_field<std::string>(entry, "identityFile")) {
    machine.identity_file = fs::path(*identity);
  }
  if (transport) {
    auto parsed = parse_transport(*transport);
    if (!parsed) return bad("has an unknown transport");
    machine.transport = *parsed;
  }
  machine.added_ms = base::json_field<std::int64_t>(entry, "addedMs").value_or(0);
  machine.machine_id = base::json_field<std::string>(entry, "machineId").value_or("");
  return machine;
}

json machine_to_json(const Machine& machine) {
  json entry{{"name", machine.name},
             {"destination", machine.destination},
             {"transport", to_string(machine.transport)},
             {"addedMs", machine.added_ms}};
  if (machine.identity_file) entry["identityFile"] = machine.identity_file->string();
  if (!machine.machine_id.empty()) entry["machineId"] = machine.machine_id;
  return entry;
}

}  // namespace

std::string_view to_string(SshTransport transport) {
  return transport == SshTransport::openssh ? "openssh" : "libssh2";
}

Result<SshTransport> parse_transport(std::string_view text) {
  if (text == "libssh2") return SshTransport::libssh2;
  if (text == "openssh") return SshTransport::openssh;
  return fail(ErrorCode::invalid_argument,
              "unknown transport '" + std::string(text) + "' (libssh2 or openssh)");
}

Result<void> check_machine_name(std::string_view name) {
  bool valid = !name.empty() && name.size() <= 64 && name.front() != '.' && name.front() != '-';
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      valid = false;
    }
  }
  if (!valid) {
    return fail(ErrorCode::invalid_argument,
                "a machine name is 1-64 of A-Z a-z 0-9 . _ - (not"
                " starting with '.' or '-')");
  }
  if (name == "local") {
    return fail(ErrorCode::invalid_argument, "'local' names this machine; choose another name");
  }
  return {};
}

MachineStore::MachineStore(const base::Home& home) : file_(home.file("machines.json")) {}

Result<std::vector<Machine>> MachineStore::list() const {
  std::error_code ec;
  if (!fs::exists(file_, ec)) return std::vector<Machine>{};
  AVA_TRY(auto text, base::read_file_limited(file_, max_file_bytes));
  auto parsed = base::parse_json(text);
  if (!parsed) return fail(ErrorCode::corrupt, file_.string() + ": " + parsed.error().message);
  const json* entries =
      parsed->is_object() && parsed->contains("machines") ? &(*parsed)["machines"] : nullptr;
  if (entries == nullptr || !entries->is_array()) {
    return fail(ErrorCode::corrupt, file_.string() + ": expected {\"machines\": [...]}");
  }
  std::vector<Machine> machines;
  for (const auto& entry : *entries) {
    AVA_TRY(auto machine, machine_from_json(entry, file_));
    machines.push_back(std::move(machine));
  }
  return machines;
}

Result<Machine> MachineStore::get(std::string_view name) const {
  AVA_TRY(auto machines, list());
  for (auto& machine : machines) {
    if (machine.name == name) return std::move(machine);
  }
  return fail(ErrorCode::not_found,
              "no machine named '" + std::string(name) + "' (see `ava machine list`)");
}

Result<void> MachineStore::add(const Machine& machine) {
  AVA_TRY_VOID(check_machine_name(machine.name));
  AVA_TRY_VOID(parse_destination(machine.destination));
  AVA_TRY(auto lock, StoreLock::take(file_));
  AVA_TRY(auto machines, list());
  if (std::ranges::any_of(machines, [&](const Machine& m) { return m.name == machine.name; })) {
    return fail(ErrorCode::already_exists, "a machine named '" + machine.name + "' exists");
  }
  if (machines.size() >= max_machines) {
    return fail(ErrorCode::limit_exceeded, "at most 1000 machines");
  }
  Machine added = machine;
  if (added.added_ms == 0) added.added_ms = base::unix_ms_now();
  machines.push_back(std::move(added));
  return save(machines);
}

Result<void> MachineStore::remove(std::string_view name) {
  AVA_TRY(auto lock, StoreLock::take(file_));
  AVA_TRY(auto machines, list());
  auto erased = std::erase_if(machines, [&](const Machine& m) { return m.name == name; });
  if (erased == 0) {
    return fail(ErrorCode::not_found, "no machine named '" + std::string(name) + "'");
  }
  return save(machines);
}

Result<void> MachineStore::set_machine_id(std::string_view name, const std::string& machine_id) {
  AVA_TRY(auto lock, StoreLock::take(file_));
  AVA_TRY(auto machines, list());
  for (auto& machine : machines) {
    if (machine.name == name) {
      machine.machine_id = machine_id;
      return save(machines);
    }
  }
  return fail(ErrorCode::not_found, "no machine named '" + std::string(name) + "'");
}

Result<void> MachineStore::save(const std::vector<Machine>& machines) const {
  json entries = json::array();
  for (const auto& machine : machines) entries.push_back(machine_to_json(machine));
  json document{{"version", 1}, {"machines", std::move(entries)}};
  return base::write_private_file(file_, document.dump(2) + "\n");
}

}  // namespace ava::remote
