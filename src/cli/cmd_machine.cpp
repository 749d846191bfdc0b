// `ava machine add|list|remove|test`: the remote machines this client
// reaches over SSH (docs/remote.md).
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/open_url.hpp"
#include "ava/base/version.hpp"
#include "ava/remote/link.hpp"
#include "ava/remote/machines.hpp"
#include "ava/remote/openssh.hpp"
#include "ava/remote/probe.hpp"
#include "ava/remote/sign_in_relay.hpp"
#include "ava/remote/ssh_session.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_input.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
constexpr CommandName command_name{"machine"};

struct MachineFlags {
  std::string name;
  std::string destination;
  std::string identity;
  std::string transport = "libssh2";
  std::string accept_host_key;
  bool no_test = false;
  bool json = false;
  int port = 0;
  bool open_browser = false;
  bool passphrase_stdin = false;
};

// A passphrase typed at the terminal, echo off; nullopt without a terminal.
std::optional<std::string> ask_passphrase(const fs::path& key) {
  return ask_secret("Passphrase for " + key.string() + ": ");
}

// For a program driving `connect --json` (the desktop): a key's passphrase
// is asked as a JSON line and read from stdin, one line (empty: skip the
// key). Kept in this process for the reconnects of the same key.
remote::PassphrasePrompt passphrase_from_stdin() {
  auto known = std::make_shared<std::map<std::string, std::string>>();
  return [known](const fs::path& key) -> std::optional<std::string> {
    if (auto found = known->find(key.string()); found != known->end()) return found->second;
    std::printf("%s\n",
                nlohmann::json{{"event", "passphrase"}, {"key", key.string()}}.dump().c_str());
    std::fflush(stdout);
    std::string line;
    constexpr std::size_t max_passphrase = 4096;
    for (char c = 0; line.size() <= max_passphrase;) {
      ssize_t n = ::read(STDIN_FILENO, &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || c == '\n') break;
      line += c;
    }
    if (line.empty() || line.size() > max_passphrase) return std::nullopt;
    (*known)[key.string()] = line;
    return line;
  };
}

// What `test` found, for both transports.
struct Reachable {
  remote::SshTarget target;
  remote::HostKey host_key;
  std::string signed_in_with;
  remote::RemoteSystem system;
};

template <class T>
Result<T> run_coroutine(asio::io_context& io, asio::awaitable<Result<T>> work) {
  std::optional<Result<T>> outcome;
  asio::co_spawn(io, std::move(work), [&outcome](const std::exception_ptr& error, Result<T> done) {
    if (error) std::rethrow_exception(error);
    outcome = std::move(done);
  });
  io.run();
  if (!outcome) return fail(ErrorCode::internal, "the connection ended without an outcome");
  return std::move(*outcome);
}

asio::awaitable<Result<Reachable>> reach_with_libssh2(remote::ConnectOptions options) {
  auto executor = co_await asio::this_coro::executor;
  AVA_CO_TRY(auto session, co_await remote::SshSession::connect(executor, std::move(options)));
  AVA_CO_TRY(auto probe, co_await session->exec(remote::probe_command()));
  if (probe.exit_status != 0) {
    co_return fail(ErrorCode::unavailable, "the probe command failed on the machine: " + probe.err);
  }
  AVA_CO_TRY(auto system, remote::parse_probe(probe.out));
  co_return Reachable{session->target(), session->host_key(), session->signed_in_with(),
                      std::move(system)};
}

asio::awaitable<Result<Reachable>> reach_with_openssh(remote::OpenSshOptions options) {
  AVA_CO_TRY(auto key, co_await remote::openssh_verify_host(options));
  AVA_CO_TRY(auto probe, co_await remote::openssh_exec(options, remote::probe_command()));
  if (probe.exit_status != 0) {
    co_return fail(ErrorCode::unavailable, "the probe command failed on the machine: " + probe.err);
  }
  AVA_CO_TRY(auto system, remote::parse_probe(probe.out));
  co_return Reachable{options.target, std::move(key), "the system ssh client", std::move(system)};
}

// The system ssh client for a machine: its config file (so ssh resolves
// the destination as Ava did) and the same host-key rules.
remote::OpenSshOptions openssh_options(const remote::SshDestination& destination,
                                       const remote::SshTarget& target,
                                       const remote::SshConfigSources& sources,
                                       remote::AcceptHostKey accept_host_key) {
  remote::OpenSshOptions options;
  options.destination = destination;
  options.target = target;
  options.accept_host_key = std::move(accept_host_key);
  fs::path user_config = sources.home / ".ssh/config";
  std::error_code ec;
  options.config_file = fs::is_regular_file(user_config, ec) ? user_config
                        : fs::is_regular_file("/etc/ssh/ssh_config", ec)
                            ? fs::path("/etc/ssh/ssh_config")
                            : fs::path("/dev/null");
  return options;
}

Result<Reachable> reach(const remote::Machine& machine, const std::string& accept) {
  AVA_TRY(auto destination, remote::parse_destination(machine.destination));
  AVA_TRY(auto sources, remote::default_config_sources());
  AVA_TRY(auto target, remote::resolve_target(destination, sources, machine.identity_file));
  if (!accept.empty() && !accept.starts_with("SHA256:")) {
    return fail(ErrorCode::invalid_argument, "--accept-host-key takes a SHA256:... fingerprint");
  }
  // Only the exact fingerprint named on the command line is accepted.
  auto accept_host_key = [accept](const remote::HostKey&, const std::string& fingerprint) {
    return !accept.empty() && accept == fingerprint;
  };
  asio::io_context io;
  if (machine.transport == remote::SshTransport::openssh) {
    return run_coroutine(
        io, reach_with_openssh(openssh_options(destination, target, sources, accept_host_key)));
  }
  remote::ConnectOptions options;
  options.target = target;
  options.accept_host_key = accept_host_key;
  if (::isatty(STDIN_FILENO) != 0) options.passphrase = ask_passphrase;
  return run_coroutine(io, reach_with_libssh2(std::move(options)));
}

void print_reachable(const remote::Machine& machine, const Reachable& found, bool json) {
  const auto& system = found.system;
  if (json) {
    nlohmann::json out{{"name", machine.name},
                       {"destination", machine.destination},
                       {"transport", remote::to_string(machine.transport)},
                       {"user", found.target.user},
                       {"host", found.target.host},
                       {"port", found.target.port},
                       {"hostKey",
                        {{"type", found.host_key.type},
                         {"fingerprint", remote::sha256_fingerprint(found.host_key.blob)}}},
                       {"signedInWith", found.signed_in_with},
                       {"os", system.os},
                       {"arch", system.arch},
                       {"ava", nullptr}};
    if (system.ava_path) {
      out["ava"] = {{"path", *system.ava_path}, {"version", system.ava_version.value_or("")}};
    }
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf("machine %s is reachable\n", machine.name.c_str());
  std::printf("  ssh        %s@%s:%u (%s)\n", found.target.user.c_str(), found.target.host.c_str(),
              static_cast<unsigned>(found.target.port),
              std::string(remote::to_string(machine.transport)).c_str());
  std::printf("  host key   %s %s\n", found.host_key.type.c_str(),
              remote::sha256_fingerprint(found.host_key.blob).c_str());
  std::printf("  signed in  %s\n", found.signed_in_with.c_str());
  std::printf("  system     %s %s\n", system.os.c_str(), system.arch.c_str());
  if (system.ava_path) {
    std::printf("  ava        %s (%s)\n", system.ava_version.value_or("unknown version").c_str(),
                system.ava_path->c_str());
  } else {
    std::printf("  ava        not installed there yet\n");
  }
  for (const auto& note : found.target.notes) std::printf("  note       %s\n", note.c_str());
}

// One JSON line on stdout for a program following `connect --json` (the
// desktop): what happened to the link, as it happens.
void print_event(const MachineFlags& flags, const nlohmann::json& event) {
  if (!flags.json) return;
  std::printf("%s\n", event.dump().c_str());
  std::fflush(stdout);
}

// Registers the tunnel with the machine's backend and prints the login URL.
asio::awaitable<Result<void>> announce(const remote::Link& link, const remote::Machine& machine,
                                       const MachineFlags& flags) {
  AVA_CO_TRY_VOID(co_await remote::register_tunnel(link));
  AVA_CO_TRY(auto url, co_await remote::link_login_url(link));
  const auto& backend = link.backend;
  if (flags.json) {
    nlohmann::json out{{"machine", machine.name},
                       {"url", url},
                       {"localPort", link.tunnel->local_port()},
                       {"remotePort", backend.port},
                       {"pid", backend.pid},
                       {"version", backend.version},
                       {"machineId", backend.machine_id},
                       {"startedMs", backend.started_ms},
                       {"installed", link.installed.dir},
                       {"uploaded", link.installed.uploaded},
                       {"updatePending", link.update_pending},
                       {"redirectPort", link.redirect_port}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("machine %s: ava-backend %s (pid %d) on the machine, tunnel on 127.0.0.1:%u\n",
                machine.name.c_str(), backend.version.c_str(), static_cast<int>(backend.pid),
                static_cast<unsigned>(link.tunnel->local_port()));
    if (link.update_pending) {
      std::printf("update pending: the machine runs %s; this client is %s\n",
                  backend.version.c_str(), std::string(base::version()).c_str());
    }
    std::printf("%s\n", url.c_str());
    std::fprintf(stderr, "ava machine: press Ctrl-C to close the tunnel\n");
  }
  std::fflush(stdout);
  if (flags.open_browser) {
    if (auto opened = base::open_url(url); !opened) {
      std::fprintf(stderr, "ava machine: %s\n", opened.error().message.c_str());
    }
  }
  co_return Result<void>{};
}

// The backend on the machine was replaced: a new login URL (a browser's
// session belonged to the old one).
asio::awaitable<void> announce_restart(const remote::Link& link, const remote::Machine& machine,
                                       const MachineFlags& flags) {
  auto url = co_await remote::link_login_url(link);
  const auto& backend = link.backend;
  if (flags.json) {
    nlohmann::json out{{"event", "backendRestarted"}, {"machine", machine.name},
                       {"pid", backend.pid},          {"version", backend.version},
                       {"remotePort", backend.port},  {"updatePending", link.update_pending},
                       {"url", url ? *url : ""}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("machine %s: ava-backend restarted (pid %d, %s)\n", machine.name.c_str(),
                static_cast<int>(backend.pid), backend.version.c_str());
    if (url) std::printf("%s\n", url->c_str());
  }
  std::fflush(stdout);
}

// How one link ended: interrupted (Ctrl-C), or lost with the reason.
struct LinkEnd {
  bool interrupted = false;
  Error lost;
};

// Runs the link's tunnel until a signal or until the connection is lost,
// then ends every forwarded connection before the session goes away.
asio::awaitable<Result<LinkEnd>> serve_one(remote::Link& link, asio::signal_set& signals,
                                           const remote::Machine& machine,
                                           const MachineFlags& flags, bool first) {
  using namespace asio::experimental::awaitable_operators;
  auto executor = co_await asio::this_coro::executor;
  std::optional<Result<void>> ended;
  asio::co_spawn(executor, link.tunnel->run(),
                 [&ended](const std::exception_ptr& error, Result<void> done) {
                   if (error) std::rethrow_exception(error);
                   ended = std::move(done);
                 });
  // After a reconnect only the port is registered again (the backend may
  // have restarted); the URL printed first still works.
  // Not a conditional expression of two co_awaits: GCC 12 copies the
  // chosen result shallowly there, and a failure's message was read after
  // it was freed (ASan, remote.machine_connect under load).
  Result<void> ready;
  if (first) {
    ready = co_await announce(link, machine, flags);
  } else {
    ready = co_await remote::register_tunnel(link);
  }
  if (ready && link.update_pending) {
    std::fprintf(stderr,
                 "ava machine: update pending: the machine's backend runs another build; it"
                 " restarts into this one when no turn runs there\n");
    ready = co_await remote::request_update(link);
  }
  asio::steady_timer poll(executor);
  LinkEnd end;
  bool lost_by_refresh = false;
  auto next_check = std::chrono::steady_clock::now();
  while (ready && !ended) {
    poll.expires_after(std::chrono::milliseconds(200));
    auto woke = co_await (signals.async_wait(asio::as_tuple(asio::use_awaitable)) ||
                          poll.async_wait(asio::as_tuple(asio::use_awaitable)));
    if (woke.index() == 0) {
      end.interrupted = true;
      break;
    }
    // Follow the backend when it restarts (an update, or a person).
    if (std::chrono::steady_clock::now() < next_check || ended) continue;
    next_check = std::chrono::steady_clock::now() +
                 (link.update_pending ? std::chrono::seconds(1) : std::chrono::seconds(5));
    auto changed = co_await remote::refresh_backend(link);
    if (!changed) {
      // Another machine id is final; the connection failing is a loss,
      // reconnected like any other.
      if (changed.error().code == ErrorCode::conflict) {
        ready = std::unexpected(std::move(changed).error());
      } else {
        end.lost = std::move(changed).error();
        lost_by_refresh = true;
      }
      break;
    }
    if (*changed) co_await announce_restart(link, machine, flags);
  }
  link.tunnel->close();
  link.session->close();
  while (!ended || link.tunnel->open_connections() > 0) {
    poll.expires_after(std::chrono::milliseconds(20));
    co_await poll.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  if (!ready) co_return std::unexpected(std::move(ready).error());
  if (!end.interrupted && !lost_by_refresh) {
    end.lost =
        *ended ? Error{ErrorCode::unavailable, "the tunnel closed"} : std::move(*ended).error();
  }
  co_return end;
}

// Serves the machine until Ctrl-C: a lost connection is opened again (same
// local port, same machine id required), so a browser or client on the
// tunnel reconnects and resumes its streams from their cursors.
asio::awaitable<Result<int>> serve_link(remote::LinkOptions options, remote::Machine machine,
                                        remote::MachineStore store, MachineFlags flags) {
  using namespace asio::experimental::awaitable_operators;
  auto executor = co_await asio::this_coro::executor;
  // Before the URL is printed: whoever reads it may interrupt at once.
  asio::signal_set signals(executor, SIGINT, SIGTERM);
  asio::steady_timer pause(executor);
  std::chrono::milliseconds backoff{250};
  // Hashing the binaries takes a while: once, not at every reconnect.
  AVA_CO_TRY(options.build, remote::local_build());
  // Sign-in redirects of the machine's MCP servers land here, where the
  // browser runs, and go to the backend of the link of the moment.
  // (Shared: a redirect being served may outlive this function.)
  auto current = std::make_shared<remote::Link*>(nullptr);
  AVA_CO_TRY(auto relay,
             remote::SignInRelay::listen(
                 executor, [current](std::string query) -> asio::awaitable<Result<int>> {
                   if (*current == nullptr) {
                     co_return fail(ErrorCode::unavailable, "the machine is reconnecting");
                   }
                   nlohmann::json body{{"query", std::move(query)}};
                   AVA_CO_TRY(auto answer,
                              co_await remote::link_request(
                                  **current, "POST", "/api/mcp/sign-in-callback", body.dump()));
                   co_return answer.status;
                 }));
  asio::co_spawn(executor, relay->run(), asio::detached);
  for (bool first = true;; first = false) {
    auto link = co_await remote::open_link(executor, options);
    if (link) {
      if (first && machine.machine_id.empty()) {
        AVA_CO_TRY_VOID(store.set_machine_id(machine.name, link->backend.machine_id));
      }
      options.expected_machine_id = link->backend.machine_id;
      options.local_port = link->tunnel->local_port();
      link->redirect_port = relay->port();
      if (!first) {
        print_event(flags, {{"event", "reconnected"},
                            {"machine", machine.name},
                            {"pid", link->backend.pid},
                            {"updatePending", link->update_pending}});
      }
      *current = &*link;
      auto end = co_await serve_one(*link, signals, machine, flags, first);
      *current = nullptr;
      if (!end && (first || end.error().code == ErrorCode::conflict)) {
        co_return std::unexpected(std::move(end).error());
      }
      if (end && end->interrupted) co_return 0;
      const std::string& why = (end ? end->lost : end.error()).message;
      std::fprintf(stderr, "ava machine: the connection to %s was lost (%s); reconnecting\n",
                   machine.name.c_str(), why.c_str());
      print_event(flags, {{"event", "reconnecting"}, {"machine", machine.name}, {"message", why}});
      backoff = std::chrono::milliseconds(250);
      continue;  // the first attempt at once; the backoff is for failed ones
    } else {
      // A refusal (host key, identity, install) is not retried; reaching
      // the machine again is.
      bool transient = link.error().code == ErrorCode::unavailable ||
                       link.error().code == ErrorCode::timeout ||
                       link.error().code == ErrorCode::io;
      if (first || !transient) co_return std::unexpected(std::move(link).error());
      std::fprintf(stderr, "ava machine: reconnecting to %s failed (%s); retrying in %lld ms\n",
                   machine.name.c_str(), link.error().message.c_str(),
                   static_cast<long long>(backoff.count()));
      print_event(flags, {{"event", "reconnecting"},
                          {"machine", machine.name},
                          {"message", link.error().message},
                          {"retryMs", backoff.count()}});
    }
    pause.expires_after(backoff);
    auto woke = co_await (signals.async_wait(asio::as_tuple(asio::use_awaitable)) ||
                          pause.async_wait(asio::as_tuple(asio::use_awaitable)));
    if (woke.index() == 0) co_return 0;
    backoff = std::min(backoff * 2, std::chrono::milliseconds(10'000));
  }
}

using OfferedKey = std::optional<std::pair<std::string, std::string>>;  // type, fingerprint

Result<int> connect_link(const MachineFlags& flags, const std::shared_ptr<OfferedKey>& offered) {
  AVA_TRY(auto home, base::Home::resolve());
  remote::MachineStore store(home);
  AVA_TRY(auto machine, store.get(flags.name));
  if (flags.port < 0 || flags.port > 65535) {
    return usage_error(command_name, Error{ErrorCode::invalid_argument, "--port is 0-65535"});
  }
  AVA_TRY(auto destination, remote::parse_destination(machine.destination));
  AVA_TRY(auto sources, remote::default_config_sources());
  AVA_TRY(auto target, remote::resolve_target(destination, sources, machine.identity_file));
  remote::LinkOptions options;
  options.ssh.target = target;
  std::string accept = flags.accept_host_key;
  options.ssh.accept_host_key = [accept, offered](const remote::HostKey& key,
                                                  const std::string& fingerprint) {
    const bool accepted = !accept.empty() && accept == fingerprint;
    if (!accepted) *offered = std::pair{key.type, fingerprint};
    return accepted;
  };
  if (flags.passphrase_stdin && flags.json) {
    options.ssh.passphrase = passphrase_from_stdin();
  } else if (::isatty(STDIN_FILENO) != 0) {
    options.ssh.passphrase = ask_passphrase;
  }
  if (machine.transport == remote::SshTransport::openssh) {
    options.openssh = openssh_options(destination, target, sources, options.ssh.accept_host_key);
  }
  options.local_port = static_cast<std::uint16_t>(flags.port);
  options.expected_machine_id = machine.machine_id;
  options.progress = [](const std::string& text) {
    std::fprintf(stderr, "ava machine: %s\n", text.c_str());
  };
  asio::io_context io;
  return run_coroutine(io, serve_link(std::move(options), machine, store, flags));
}

// With --json a failure is also a JSON line on stdout; an unknown host key
// that was offered and not accepted is named there, so a desktop can show
// it and ask the person to compare it.
Result<int> connect(const MachineFlags& flags) {
  auto offered = std::make_shared<OfferedKey>();
  auto served = connect_link(flags, offered);
  if (!served) {
    nlohmann::json event{{"event", "failed"},
                         {"machine", flags.name},
                         {"code", std::string(to_string(served.error().code))},
                         {"message", served.error().message}};
    if (*offered) {
      event["hostKey"] = {{"type", (*offered)->first}, {"fingerprint", (*offered)->second}};
    }
    print_event(flags, event);
  }
  return served;
}

Result<int> test(const MachineFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto machine, remote::MachineStore(home).get(flags.name));
  AVA_TRY(auto found, reach(machine, flags.accept_host_key));
  print_reachable(machine, found, flags.json);
  return 0;
}

Result<int> add(const MachineFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  remote::Machine machine;
  machine.name = flags.name;
  machine.destination = flags.destination;
  if (!flags.identity.empty()) machine.identity_file = fs::absolute(flags.identity);
  auto transport = remote::parse_transport(flags.transport);
  if (!transport) return usage_error(command_name, transport.error());
  machine.transport = *transport;
  if (auto checked = remote::check_machine_name(machine.name); !checked) {
    return usage_error(command_name, checked.error());
  }
  if (auto parsed = remote::parse_destination(machine.destination); !parsed) {
    return usage_error(command_name, parsed.error());
  }
  remote::MachineStore store(home);
  AVA_TRY_VOID(store.add(machine));
  std::fprintf(stderr, "ava machine: added %s (%s)\n", machine.name.c_str(),
               machine.destination.c_str());
  if (flags.no_test) return 0;
  auto found = reach(machine, flags.accept_host_key);
  if (!found) {
    return std::unexpected(std::move(found).error().with_context(
        "saved, but not reachable yet (fix it, then `ava machine test " + machine.name + "`)"));
  }
  print_reachable(machine, *found, flags.json);
  return 0;
}

Result<int> list(bool json) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto machines, remote::MachineStore(home).list());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& machine : machines) {
      nlohmann::json entry{{"name", machine.name},
                           {"destination", machine.destination},
                           {"transport", remote::to_string(machine.transport)},
                           {"addedMs", machine.added_ms}};
      if (machine.identity_file) entry["identityFile"] = machine.identity_file->string();
      if (!machine.machine_id.empty()) entry["machineId"] = machine.machine_id;
      out.push_back(std::move(entry));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (machines.empty()) {
    std::printf("no remote machines (add one with `ava machine add NAME [user@]host[:port]`)\n");
    return 0;
  }
  for (const auto& machine : machines) {
    std::printf("%-20s %-36s %s\n", machine.name.c_str(), machine.destination.c_str(),
                std::string(remote::to_string(machine.transport)).c_str());
  }
  return 0;
}

Result<int> remove(const std::string& name) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY_VOID(remote::MachineStore(home).remove(name));
  std::printf("removed machine %s\n", name.c_str());
  return 0;
}

}  // namespace

void add_machine_commands(CLI::App& cli, CliContext& context) {
  auto* machine = cli.add_subcommand("machine", "Remote machines reached over SSH");
  machine->require_subcommand(1);
  auto flags = std::make_shared<MachineFlags>();

  auto* add_cmd = machine->add_subcommand("add", "Add a machine and test the connection");
  add_cmd->add_option("name", flags->name, "A name for it (letters, digits, . _ -)")->required();
  add_cmd
      ->add_option("destination", flags->destination,
                   "[user@]host[:port], host may be an ssh_config alias")
      ->required();
  add_cmd->add_option("--identity", flags->identity, "A private key file to sign in with");
  add_cmd
      ->add_option("--transport", flags->transport, "libssh2 (default) or openssh (the system ssh)")
      ->check(CLI::IsMember({"libssh2", "openssh"}));
  add_cmd->add_option("--accept-host-key", flags->accept_host_key,
                      "Accept an unknown host key with this SHA256:... fingerprint");
  add_cmd->add_flag("--no-test", flags->no_test, "Only save it; do not connect");
  add_cmd->add_flag("--json", flags->json, "Print the test's result as JSON");
  add_cmd->callback([&context, flags] { finish(context, command_name, add(*flags)); });

  auto* list_cmd = machine->add_subcommand("list", "List the machines");
  list_cmd->add_flag("--json", flags->json, "Print JSON");
  list_cmd->callback([&context, flags] { finish(context, command_name, list(flags->json)); });

  auto* remove_cmd = machine->add_subcommand("remove", "Forget a machine (nothing on it changes)");
  remove_cmd->alias("rm");
  remove_cmd->add_option("name", flags->name, "The machine")->required();
  remove_cmd->callback([&context, flags] { finish(context, command_name, remove(flags->name)); });

  auto* test_cmd =
      machine->add_subcommand("test", "Connect, check the host key, sign in, look around");
  test_cmd->add_option("name", flags->name, "The machine")->required();
  test_cmd->add_option("--accept-host-key", flags->accept_host_key,
                       "Accept an unknown host key with this SHA256:... fingerprint");
  test_cmd->add_flag("--json", flags->json, "Print JSON");
  test_cmd->callback([&context, flags] { finish(context, command_name, test(*flags)); });

  auto* connect_cmd = machine->add_subcommand(
      "connect", "Start Ava on the machine and tunnel to it; prints a login URL for a browser");
  connect_cmd->add_option("name", flags->name, "The machine")->required();
  connect_cmd
      ->add_option("--port", flags->port, "The local port of the tunnel (default: any free one)")
      ->check(CLI::Range(0, 65535));
  connect_cmd->add_option("--accept-host-key", flags->accept_host_key,
                          "Accept an unknown host key with this SHA256:... fingerprint");
  connect_cmd->add_flag("--open", flags->open_browser, "Open the URL in a browser");
  connect_cmd->add_flag("--json", flags->json, "Print one JSON line when connected");
  connect_cmd->add_flag("--passphrase-stdin", flags->passphrase_stdin,
                        "With --json: ask for a key's passphrase as a JSON line and read it from"
                        " stdin (one line; empty skips the key)");
  connect_cmd->callback([&context, flags] { finish(context, command_name, connect(*flags)); });
}

}  // namespace ava::cli
