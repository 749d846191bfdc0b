// Connecting a client to a machine's backend: SSH, install, start, tunnel.
#include "ava/remote/link.hpp"

#include <boost/asio/this_coro.hpp>

#include "ava/base/json.hpp"
#include "ava/remote/openssh_shell.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;

void say(const LinkOptions& options, const std::string& text) {
  if (options.progress) options.progress(text);
}

constexpr std::string_view read_backend_json =
    "cat \"${AVA_HOME:-$HOME/.ava}/backend.json\" 2>/dev/null";

// Whether the backend process runs the ava-backend of `installed` (Linux's
// /proc; elsewhere the versions are compared).
asio::awaitable<Result<bool>> runs_installed_build(MachineShell& session,
                                                   const machine::BackendEndpoint& backend,
                                                   const Installed& installed,
                                                   const std::string& version) {
  AVA_CO_TRY(auto exe,
             co_await session.exec("readlink -f /proc/" + std::to_string(backend.pid) + "/exe"));
  if (exe.exit_status != 0 || exe.out.empty()) co_return backend.version == version;
  while (!exe.out.empty() && exe.out.back() == '\n') exe.out.pop_back();
  AVA_CO_TRY(auto expected,
             co_await session.exec("readlink -f " + shell_quote(installed.dir + "/ava-backend")));
  while (!expected.out.empty() && expected.out.back() == '\n') expected.out.pop_back();
  co_return expected.exit_status == 0 && exe.out == expected.out;
}

// The per-user install (managed by clients) is used only when it holds
// this exact build; an Ava on PATH (managed by a person) when its version
// is this one.
bool use_found_ava(const RemoteSystem& system, const LocalBuild& build) {
  if (!system.ava_path || system.ava_version != "ava " + build.version) return false;
  std::string ours = system.home + "/" + std::string(remote_install_dir) + "/";
  return !system.ava_path->starts_with(ours);
}

}  // namespace

asio::awaitable<Result<LinkResponse>> link_request(const Link& link, std::string method,
                                                   std::string path, std::string body) {
  auto executor = co_await asio::this_coro::executor;
  transport::HttpClientOptions client_options;
  client_options.proxy = transport::ProxyConfig{};  // loopback: never through a proxy
  AVA_CO_TRY(auto client, transport::HttpClient::create(executor, client_options));
  transport::HttpRequest request;
  request.method = std::move(method);
  request.url = "http://127.0.0.1:" + std::to_string(link.tunnel->local_port()) + path;
  // The backend's own port in Host: its fence admits the tunnel's port only
  // once registered, and this may be the registration.
  request.headers.push_back({"Host", "127.0.0.1:" + std::to_string(link.backend.port)});
  request.headers.push_back({"Authorization", "Bearer " + link.backend.token});
  if (!body.empty()) request.headers.push_back({"Content-Type", "application/json"});
  request.body = std::move(body);
  AVA_CO_TRY(auto response, co_await client->send(request, transport::BodyHandler{}));
  co_return LinkResponse{response.status, std::move(response.body)};
}

asio::awaitable<Result<void>> register_tunnel(const Link& link) {
  nlohmann::json body{{"port", link.tunnel->local_port()}};
  if (link.redirect_port != 0) body["redirectPort"] = link.redirect_port;
  AVA_CO_TRY(auto response, co_await link_request(link, "POST", "/api/tunnel-ports", body.dump()));
  if (response.status != 204) {
    co_return fail(ErrorCode::unavailable,
                   "the machine's backend did not take the tunnel's port"
                   " (HTTP " +
                       std::to_string(response.status) + ": " + response.body.substr(0, 300) + ")");
  }
  co_return Result<void>{};
}

asio::awaitable<Result<void>> request_update(const Link& link) {
  std::string script = "mkdir -p \"${AVA_HOME:-$HOME/.ava}/logs\" && nohup " +
                       shell_quote(link.installed.ava) +
                       " backend restart --when-idle --max-wait 3600 </dev/null"
                       " >>\"${AVA_HOME:-$HOME/.ava}/logs/update.log\" 2>&1 &";
  AVA_CO_TRY(auto started, co_await link.session->exec("sh -c " + shell_quote(script)));
  if (started.exit_status != 0) {
    co_return fail(ErrorCode::io, "could not ask the machine to update: " + started.err);
  }
  co_return Result<void>{};
}

asio::awaitable<Result<bool>> refresh_backend(Link& link) {
  AVA_CO_TRY(auto read, co_await link.session->exec(std::string(read_backend_json)));
  if (read.exit_status != 0) co_return false;  // between two backends
  auto endpoint = machine::parse_backend_file(read.out, "the machine's backend.json");
  if (!endpoint || endpoint->pid == link.backend.pid) co_return false;
  if (endpoint->machine_id != link.backend.machine_id) {
    co_return fail(ErrorCode::conflict, "the machine's backend now reports machine id " +
                                            endpoint->machine_id + ", not " +
                                            link.backend.machine_id);
  }
  // A backend that wrote backend.json answers; the registration proves it.
  auto previous = link.backend;
  link.backend = *endpoint;
  link.tunnel->set_remote_port(endpoint->port);
  if (auto registered = co_await register_tunnel(link); !registered) {
    link.backend = previous;
    link.tunnel->set_remote_port(previous.port);
    co_return false;
  }
  AVA_CO_TRY(bool current, co_await runs_installed_build(*link.session, link.backend,
                                                         link.installed, link.version));
  link.update_pending = !current;
  co_return true;
}

asio::awaitable<Result<std::string>> link_login_url(const Link& link) {
  AVA_CO_TRY(auto response, co_await link_request(link, "POST", "/api/login-codes"));
  if (response.status != 201) {
    co_return fail(ErrorCode::unavailable, "the machine's backend gave no login code (HTTP " +
                                               std::to_string(response.status) + ")");
  }
  AVA_CO_TRY(auto answer, base::parse_json(response.body));
  auto code = base::json_field<std::string>(answer, "code");
  if (!code || code->empty() ||
      code->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") !=
          std::string::npos) {
    co_return fail(ErrorCode::protocol, "the machine's backend sent a malformed login code");
  }
  co_return "http://127.0.0.1:" + std::to_string(link.tunnel->local_port()) + "/?login=" + *code;
}

asio::awaitable<Result<Link>> open_link(asio::any_io_executor executor, LinkOptions options) {
  Link link;
  say(options, "connecting to " + options.ssh.target.user + "@" + options.ssh.target.host + ":" +
                   std::to_string(options.ssh.target.port));
  if (options.openssh) {
    AVA_CO_TRY(auto shell, co_await OpenSshShell::open(executor, *options.openssh));
    link.session = std::move(shell);
  } else {
    AVA_CO_TRY(auto session, co_await SshSession::connect(executor, options.ssh));
    link.session = std::move(session);
  }
  AVA_CO_TRY(auto probe, co_await link.session->exec(probe_command()));
  if (probe.exit_status != 0) {
    co_return fail(ErrorCode::unavailable, "the probe command failed on the machine: " + probe.err);
  }
  AVA_CO_TRY(link.system, parse_probe(probe.out));
  if (!options.build) {
    AVA_CO_TRY(options.build, local_build());
  }
  const LocalBuild& build = *options.build;
  say(options, "checking for " + build.version + " (" + build.id + ") on the machine");
  const auto& found = link.system;
  if (use_found_ava(found, build)) {
    link.installed.ava = *found.ava_path;
    link.installed.dir = found.ava_path->substr(0, found.ava_path->rfind('/'));
  } else {
    AVA_CO_TRY(link.installed, co_await ensure_installed(*link.session, link.system, build));
  }
  if (link.installed.uploaded) {
    say(options, "uploaded and verified " + build.id);
    AVA_CO_TRY_VOID(co_await activate(*link.session, link.system, link.installed));
  }
  say(options, "starting the backend on the machine");
  AVA_CO_TRY(link.backend, co_await start_remote_backend(*link.session, link.installed.ava));
  if (!options.expected_machine_id.empty() &&
      link.backend.machine_id != options.expected_machine_id) {
    co_return fail(ErrorCode::conflict,
                   "the machine answered with machine id " + link.backend.machine_id + ", not " +
                       options.expected_machine_id +
                       " as before: it is another machine, or its AVA_HOME was replaced."
                       " Remove and add the machine again if that is expected");
  }
  AVA_CO_TRY(bool current, co_await runs_installed_build(*link.session, link.backend,
                                                         link.installed, build.version));
  link.update_pending = !current;
  link.version = build.version;
  AVA_CO_TRY(link.tunnel,
             Tunnel::listen(executor, *link.session, link.backend.port, options.local_port));
  // The tunnel forwards only while it runs: serve it during registration.
  co_return link;
}

}  // namespace ava::remote
