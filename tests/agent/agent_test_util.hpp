#pragma once

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include "ava/agent/agent.hpp"
#include "ava/llm/mock_provider.hpp"
#include "ava/session/log_reader.hpp"
#include "support/temp_dir.hpp"

namespace ava::test {

// What every provider made by a test factory saw.
struct ProviderJournal {
  std::mutex mutex;
  std::vector<llm::Request> requests;
  int created = 0;
  int closed = 0;

  std::vector<llm::Request> snapshot() {
    std::lock_guard lock(mutex);
    return requests;
  }
};

// Delegates to a scripted MockProvider and records requests and closes.
class RecordingProvider final : public llm::Provider {
 public:
  RecordingProvider(std::unique_ptr<llm::Provider> inner, std::shared_ptr<ProviderJournal> journal)
      : inner_(std::move(inner)), journal_(std::move(journal)) {}
  boost::asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                       llm::EventSink on_event) override {
    {
      std::lock_guard lock(journal_->mutex);
      journal_->requests.push_back(request);
    }
    co_return co_await inner_->stream(request, std::move(on_event));
  }
  void close() override {
    std::lock_guard lock(journal_->mutex);
    ++journal_->closed;
  }

 private:
  std::unique_ptr<llm::Provider> inner_;
  std::shared_ptr<ProviderJournal> journal_;
};

// Answers every request with a short text, after yielding once so that
// input can arrive while the "model" works.
class EchoProvider final : public llm::Provider {
 public:
  boost::asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                       llm::EventSink on_event) override {
    auto executor = co_await boost::asio::this_coro::executor;
    co_await boost::asio::post(executor, boost::asio::use_awaitable);
    llm::Response response;
    response.message.role = llm::Role::assistant;
    const std::string text = "ok " + std::to_string(request.messages.size());
    if (on_event) on_event(llm::TextDelta{text});
    response.message.content.emplace_back(llm::TextBlock{text});
    response.usage.input_tokens = 10;
    response.usage.output_tokens = 2;
    response.stop = llm::Stop{.reason = llm::StopReason::end_turn, .provider_reason = "end_turn"};
    co_return response;
  }
};

inline llm::MockScript script_from(std::string_view json) {
  auto script = llm::parse_mock_script(json);
  if (!script) throw std::runtime_error("bad mock script: " + script.error().message);
  return *script;
}

// A factory whose providers play `script` (shared: a second provider
// continues where the first stopped, as a model switch would).
inline agent::ProviderFactory scripted_factory(llm::MockScript script,
                                               std::shared_ptr<ProviderJournal> journal) {
  auto shared = std::make_shared<llm::MockScript>(std::move(script));
  auto used = std::make_shared<std::size_t>(0);
  return
      [shared, used, journal](const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
        llm::MockScript rest;
        rest.responses.assign(shared->responses.begin() + static_cast<std::ptrdiff_t>(*used),
                              shared->responses.end());
        {
          std::lock_guard lock(journal->mutex);
          ++journal->created;
        }
        return agent::ProviderBinding{
            .provider = std::make_unique<RecordingProvider>(
                std::make_unique<llm::MockProvider>(std::move(rest)), journal),
            .provider_name = choice.provider.empty() ? "mock" : choice.provider,
            .model = choice.model.empty() ? "mock-model" : choice.model,
            .context_window = 200'000};
      };
}

inline agent::ProviderFactory echo_factory() {
  return [](const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
    return agent::ProviderBinding{.provider = std::make_unique<EchoProvider>(),
                                  .provider_name = "echo",
                                  .model = choice.model.empty() ? "echo-model" : choice.model};
  };
}

// An io_context running on its own thread, for agents driven from the test.
class Runtime {
 public:
  Runtime() : guard_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~Runtime() {
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  boost::asio::any_io_executor executor() { return io_.get_executor(); }

  template <class T>
  T run(boost::asio::awaitable<T> task, std::chrono::seconds bound = std::chrono::seconds(120)) {
    auto future = boost::asio::co_spawn(io_, std::move(task), boost::asio::use_future);
    if (future.wait_for(bound) != std::future_status::ready) {
      throw std::runtime_error("awaitable did not finish within the bound");
    }
    return future.get();
  }

  void wait_idle(agent::Agent& agent) { run(agent.wait_idle()); }
  void close(agent::Agent& agent) {
    auto closed = run(agent.close());
    if (!closed) throw std::runtime_error("close failed: " + closed.error().message);
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::thread thread_;
};

inline std::vector<session::Event> read_events(const std::filesystem::path& path) {
  auto scan = session::read_log(path);
  if (!scan) throw std::runtime_error("read_log: " + scan.error().message);
  return scan->events;
}

template <class T>
std::vector<T> events_of(const std::vector<session::Event>& events) {
  std::vector<T> found;
  for (const auto& event : events) {
    if (const auto* body = std::get_if<T>(&event.body)) found.push_back(*body);
  }
  return found;
}

// Every tool call persisted in an assistant message has exactly one result.
inline std::string check_calls_paired(const std::vector<session::Event>& events) {
  std::map<std::string, int> results;
  std::set<std::string> calls;
  for (const auto& event : events) {
    if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      for (const auto& block : message->content) {
        if (const auto* call = std::get_if<llm::ToolCallBlock>(&block)) calls.insert(call->id);
      }
    } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
      ++results[result->call_id];
    }
  }
  for (const auto& id : calls) {
    if (results[id] != 1) return id + " has " + std::to_string(results[id]) + " results";
  }
  for (const auto& [id, count] : results) {
    if (!calls.contains(id)) return id + " has a result but no call";
  }
  return {};
}

// The text blocks of a message or a tool result, joined.
template <class Blocks>
std::string text_in(const Blocks& blocks) {
  std::string text;
  for (const auto& block : blocks) {
    if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
  }
  return text;
}

inline agent::AgentOptions basic_options(agent::ProviderFactory factory,
                                         const std::filesystem::path& cwd) {
  agent::AgentOptions options;
  options.provider_factory = std::move(factory);
  options.cwd = cwd;
  return options;
}

}  // namespace ava::test
