#include "ava/agent/agent.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/version.hpp"
#include "core.hpp"

namespace ava::agent {
namespace {

// A log is named <session id>.jsonl.zst; an explicit path may use any name.
std::string session_id_from(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  return name.substr(0, name.find('.'));
}

Result<ProviderBinding> bind(const AgentOptions& options, const ModelChoice& choice) {
  if (!options.provider_factory) {
    return fail(ErrorCode::invalid_argument, "agent options need a provider factory");
  }
  AVA_TRY(auto binding, options.provider_factory(choice));
  if (!binding.provider) return fail(ErrorCode::internal, "provider factory returned no provider");
  return binding;
}

}  // namespace

std::string_view to_string(DriverState state) {
  switch (state) {
    case DriverState::idle: return "idle";
    case DriverState::running: return "running";
    case DriverState::waiting: return "waiting";
    case DriverState::pausing: return "pausing";
    case DriverState::paused: return "paused";
    case DriverState::aborting: return "aborting";
    case DriverState::closed: return "closed";
  }
  return "unknown";
}

Agent::Agent(std::shared_ptr<AgentCore> core) : core_(std::move(core)) {}

Agent::~Agent() {
  if (core_) core_->request_close();
}

Result<std::unique_ptr<Agent>> Agent::create(boost::asio::any_io_executor executor,
                                             const std::filesystem::path& log_path,
                                             AgentOptions options) {
  AVA_TRY(auto binding, bind(options, options.model));
  std::error_code ec;
  auto cwd = options.cwd.empty() ? std::filesystem::current_path(ec) : options.cwd;
  cwd = std::filesystem::weakly_canonical(std::filesystem::absolute(cwd, ec), ec);
  if (!std::filesystem::is_directory(cwd, ec)) {
    return fail(ErrorCode::not_found, "working directory does not exist: " + cwd.string());
  }
  options.cwd = cwd;
  session::SessionStarted start{.session_id = session_id_from(log_path),
                                .provider = binding.provider_name,
                                .model = binding.model,
                                .cwd = cwd.string(),
                                .version = std::string(base::version()),
                                .parent_session_id = options.parent_session_id,
                                .parent_call_id = options.parent_call_id};
  AVA_TRY(auto log, session::LogWriter::create(log_path, start));
  auto core = std::make_shared<AgentCore>(std::move(executor), std::move(options), std::move(log));
  AVA_TRY_VOID(core->start_new(std::move(start), std::move(binding)));
  return std::unique_ptr<Agent>(new Agent(std::move(core)));
}

Result<std::unique_ptr<Agent>> Agent::create_at(boost::asio::any_io_executor executor,
                                                const std::filesystem::path& log_path,
                                                AgentOptions options) {
  if (!options.provider_factory) {
    return fail(ErrorCode::invalid_argument, "agent options need a provider factory");
  }
  AVA_TRY(auto log, session::LogWriter::open(log_path));
  auto core = std::make_shared<AgentCore>(std::move(executor), std::move(options), std::move(log));
  AVA_TRY_VOID(core->start_existing());
  return std::unique_ptr<Agent>(new Agent(std::move(core)));
}

Result<InputReceipt> Agent::followup(std::string text, std::vector<llm::ImageBlock> attachments) {
  return followup(Input{.text = std::move(text), .attachments = std::move(attachments)});
}

Result<InputReceipt> Agent::steer(std::string text, std::vector<llm::ImageBlock> attachments) {
  return steer(Input{.text = std::move(text), .attachments = std::move(attachments)});
}

Result<InputReceipt> Agent::followup(Input input) {
  return core_->acknowledge(session::InputKind::followup, std::move(input));
}

Result<InputReceipt> Agent::steer(Input input) {
  return core_->acknowledge(session::InputKind::steer, std::move(input));
}

Result<void> Agent::pause() { return core_->request_pause(); }
Result<void> Agent::resume() { return core_->request_resume(); }
Result<void> Agent::abort() { return core_->request_abort(); }
Result<void> Agent::set_model(const ModelChoice& choice) { return core_->set_model(choice); }
Result<void> Agent::decide(const std::string& approval_id, const ApprovalAnswer& answer) {
  return core_->decide(approval_id, answer);
}
Result<void> Agent::set_permission_mode(policy::Mode mode) {
  return core_->set_permission_mode(mode);
}
std::optional<PermissionOptions> Agent::permissions() const { return core_->permissions(); }

std::uint64_t Agent::subscribe(EventCallback callback) {
  return core_->subscribe(std::move(callback));
}
std::uint64_t Agent::subscribe_live(LiveCallback callback) {
  return core_->subscribe_live(std::move(callback));
}
void Agent::unsubscribe(std::uint64_t id) { core_->unsubscribe(id); }

Status Agent::status() const { return core_->status(); }
ContextReport Agent::context_report() const { return core_->context_report(); }
llm::Request Agent::next_request() const { return core_->next_request(); }
const std::string& Agent::session_id() const { return core_->session_id(); }
const std::filesystem::path& Agent::log_path() const { return core_->log_path(); }

boost::asio::awaitable<void> Agent::wait_idle() { return core_->wait_idle(); }
boost::asio::awaitable<Result<void>> Agent::close() { return core_->close(); }
void Agent::begin_close() { core_->request_close(); }

}  // namespace ava::agent
