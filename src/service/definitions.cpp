// The service definitions as text: a systemd user unit and a launchd plist.
#include <cstdint>

#include <fmt/format.h>

#include "ava/service/service.hpp"

namespace ava::service {
namespace {

// A stable short name for a home other than the default: FNV-1a of its path.
std::string home_suffix(const std::filesystem::path& home) {
  std::uint32_t hash = 2166136261u;
  for (const unsigned char c : home.string()) {
    hash ^= c;
    hash *= 16777619u;
  }
  return fmt::format("{:08x}", hash);
}

bool printable(std::string_view text) {
  for (const unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

// One word of an ExecStart= or Environment= line: double-quoted, with the
// characters systemd treats specially escaped ("%" is a specifier, "$" a
// variable, "\\" and '"' quoting).
std::string systemd_word(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '%': out += "%%"; break;
      case '$': out += "$$"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

Manager native_manager() {
#ifdef __APPLE__
  return Manager::launchd;
#else
  return Manager::systemd;
#endif
}

Result<ServiceSpec> service_spec(const base::Home& home, std::filesystem::path backend,
                                 Manager manager, const base::EnvLookup& env) {
  if (!backend.is_absolute()) {
    return fail(
        ErrorCode::invalid_argument,
        fmt::format("the service needs ava-backend's absolute path, not {}", backend.string()));
  }
  if (!printable(backend.string()) || !printable(home.root().string())) {
    return fail(ErrorCode::invalid_argument,
                "a path with control characters cannot go into a service definition");
  }
  const auto user_home = env("HOME");
  if (!user_home || user_home->empty()) {
    return fail(ErrorCode::invalid_argument, "HOME is not set: no place for a service definition");
  }
  ServiceSpec spec;
  spec.manager = manager;
  spec.backend = std::move(backend);
  spec.home = home.root();
  std::error_code ec;
  const auto default_root =
      std::filesystem::weakly_canonical(std::filesystem::path(*user_home) / ".ava", ec);
  spec.default_home = std::filesystem::weakly_canonical(spec.home, ec) == default_root;
  spec.name = spec.default_home ? "ava-backend" : "ava-backend-" + home_suffix(spec.home);
  if (manager == Manager::systemd) {
    auto config = env("XDG_CONFIG_HOME");
    const std::filesystem::path config_dir =
        config && !config->empty() && std::filesystem::path(*config).is_absolute()
            ? std::filesystem::path(*config)
            : std::filesystem::path(*user_home) / ".config";
    spec.definition = config_dir / "systemd" / "user" / (spec.name + ".service");
  } else {
    spec.definition = std::filesystem::path(*user_home) / "Library" / "LaunchAgents" /
                      ("dev.ava." + spec.name + ".plist");
  }
  spec.log = home.logs() / "backend.log";
  return spec;
}

std::string systemd_unit(const ServiceSpec& spec) {
  std::string unit = fmt::format(
      "# Written by `ava service install`; `ava service uninstall` removes it.\n"
      "[Unit]\n"
      "Description=Ava backend for {}\n"
      // A backend that keeps failing (another process owns the home, a bad
      // settings file) stops being restarted after five tries a minute.
      "StartLimitIntervalSec=60\n"
      "StartLimitBurst=5\n"
      "\n"
      "[Service]\n"
      "Type=simple\n"
      "ExecStart={} --log-level info\n",
      spec.home.string(), systemd_word(spec.backend.string()));
  if (!spec.default_home)
    unit += "Environment=" + systemd_word("AVA_HOME=" + spec.home.string()) + "\n";
  unit +=
      "Restart=on-failure\n"
      "RestartSec=2\n"
      // SIGTERM to the backend alone: it ends its turns' processes and MCP
      // servers itself, in its shutdown order, and flushes the logs.
      "KillMode=mixed\n"
      "TimeoutStopSec=90\n"
      "UMask=0077\n"
      "\n"
      "[Install]\n"
      "WantedBy=default.target\n";
  return unit;
}

std::string launchd_plist(const ServiceSpec& spec) {
  std::string environment;
  if (!spec.default_home) {
    environment = fmt::format(
        "  <key>EnvironmentVariables</key>\n"
        "  <dict>\n"
        "    <key>AVA_HOME</key>\n"
        "    <string>{}</string>\n"
        "  </dict>\n",
        xml_text(spec.home.string()));
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
      "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
      "<plist version=\"1.0\">\n"
      "<dict>\n"
      "  <key>Label</key>\n"
      "  <string>dev.ava.{}</string>\n"
      "  <key>ProgramArguments</key>\n"
      "  <array>\n"
      "    <string>{}</string>\n"
      "    <string>--log-level</string>\n"
      "    <string>info</string>\n"
      "  </array>\n"
      "{}"
      "  <key>RunAtLoad</key>\n"
      "  <true/>\n"
      // Restarted when it fails, not after a clean stop (`ava backend stop`).
      "  <key>KeepAlive</key>\n"
      "  <dict>\n"
      "    <key>SuccessfulExit</key>\n"
      "    <false/>\n"
      "  </dict>\n"
      "  <key>ThrottleInterval</key>\n"
      "  <integer>10</integer>\n"
      "  <key>Umask</key>\n"
      "  <integer>63</integer>\n"
      "  <key>StandardOutPath</key>\n"
      "  <string>{}</string>\n"
      "  <key>StandardErrorPath</key>\n"
      "  <string>{}</string>\n"
      "</dict>\n"
      "</plist>\n",
      xml_text(spec.name), xml_text(spec.backend.string()), environment,
      xml_text(spec.log.string()), xml_text(spec.log.string()));
}

std::string definition_text(const ServiceSpec& spec) {
  return spec.manager == Manager::systemd ? systemd_unit(spec) : launchd_plist(spec);
}

}  // namespace ava::service
