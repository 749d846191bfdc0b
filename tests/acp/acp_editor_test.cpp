// The agent's requests to the editor: answers, errors, timeouts and
// cancellation reach the waiting coroutine; actions wait for the bridge to
// announce their call; the editor's capabilities and the config options.
#include <catch2/catch.hpp>

#include <thread>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/acp/editor.hpp"
#include "ava/acp/options.hpp"

using nlohmann::json;
using namespace ava;
namespace asio = boost::asio;

namespace {

// Keeps the requests; the test answers them.
class FakeChannel final : public acp::EditorChannel {
 public:
  void request(const std::string& method, json params, Answered answered) override {
    sent.push_back({method, std::move(params)});
    answers.push_back(std::move(answered));
  }
  void notify(const std::string& method, json params) override {
    notified.push_back({method, std::move(params)});
  }
  std::vector<std::pair<std::string, json>> sent;
  std::vector<std::pair<std::string, json>> notified;
  std::vector<Answered> answers;
};

struct Call {
  std::optional<Result<json>> outcome;
};

// Starts link.call() on `io`, with `signal` as its cancellation.
std::shared_ptr<Call> start(asio::io_context& io, acp::EditorLink& link,
                            asio::cancellation_signal& signal, std::chrono::milliseconds timeout) {
  auto call = std::make_shared<Call>();
  asio::co_spawn(
      io,
      [&link, call, timeout]() -> asio::awaitable<void> {
        json params{{"path", "/p/a"}};
        call->outcome = co_await link.call("fs/read_text_file", std::move(params), timeout);
      },
      asio::bind_cancellation_slot(signal.slot(), [](const std::exception_ptr&) {}));
  return call;
}

// Runs what is ready for `ms`; a context that ran out of work is restarted.
void pump(asio::io_context& io, int ms) {
  io.restart();
  io.run_for(std::chrono::milliseconds(ms));
}

}  // namespace

TEST_CASE("a call to the editor gets its answer, an error, a timeout or a cancel", "[acp]") {
  asio::io_context io;
  auto channel = std::make_shared<FakeChannel>();
  acp::EditorLink link(channel, {.read_text_file = true});
  link.set_session_id("s1");
  asio::cancellation_signal signal;

  auto answered = start(io, link, signal, std::chrono::seconds(30));
  pump(io, 20);
  REQUIRE(channel->sent.size() == 1);
  REQUIRE(channel->answers.size() == 1);
  CHECK(channel->sent[0].first == "fs/read_text_file");
  CHECK(channel->sent[0].second == json{{"path", "/p/a"}, {"sessionId", "s1"}});
  CHECK_FALSE(answered->outcome.has_value());
  // From another thread, as the bridge's reader answers.
  std::thread([&] { channel->answers[0](json{{"content", "text"}}); }).join();
  pump(io, 50);
  REQUIRE(answered->outcome.has_value());
  REQUIRE(answered->outcome->has_value());
  CHECK((**answered->outcome)["content"] == "text");

  auto refused = start(io, link, signal, std::chrono::seconds(30));
  pump(io, 20);
  REQUIRE(channel->answers.size() == 2);
  channel->answers[1](fail(ErrorCode::unavailable, "the editor answered: no such file"));
  pump(io, 50);
  REQUIRE(refused->outcome.has_value());
  CHECK(refused->outcome->error().code == ErrorCode::unavailable);

  auto slow = start(io, link, signal, std::chrono::milliseconds(100));
  pump(io, 400);
  REQUIRE(channel->answers.size() == 3);
  REQUIRE(slow->outcome.has_value());
  CHECK(slow->outcome->error().code == ErrorCode::timeout);
  channel->answers[2](json::object());  // too late: dropped
  pump(io, 20);

  auto cancelled = start(io, link, signal, std::chrono::seconds(30));
  pump(io, 20);
  signal.emit(asio::cancellation_type::terminal);
  pump(io, 50);
  REQUIRE(cancelled->outcome.has_value());
  CHECK(cancelled->outcome->error().code == ErrorCode::cancelled);
}

TEST_CASE("actions for a tool call wait until the bridge announced it", "[acp]") {
  auto channel = std::make_shared<FakeChannel>();
  acp::EditorLink link(channel, {.terminal = true});
  std::vector<std::string> ran;
  link.after_announced("c1", [&] { ran.push_back("embed"); });
  link.after_announced("c1", [&] { ran.push_back("release"); });
  CHECK(ran.empty());
  link.announced("c2");
  CHECK(ran.empty());
  link.announced("c1");
  CHECK(ran == std::vector<std::string>{"embed", "release"});
  // Once announced, at once.
  link.after_announced("c2", [&] { ran.push_back("late"); });
  CHECK(ran.back() == "late");
  // Never announced: past the bound, they run anyway rather than never.
  ran.clear();
  for (int i = 0; i < 70; ++i) {
    link.after_announced("x" + std::to_string(i), [&] { ran.push_back("forced"); });
  }
  CHECK(ran.size() == 6);
}

TEST_CASE("the editor's capabilities come from initialize", "[acp]") {
  auto offered = acp::parse_editor_capabilities(json::parse(
      R"({"clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false},
          "terminal": true}})"));
  CHECK(offered.read_text_file);
  CHECK_FALSE(offered.write_text_file);
  CHECK(offered.terminal);
  for (const char* hostile : {R"({})", R"({"clientCapabilities": 3})",
                              R"({"clientCapabilities": {"fs": "yes", "terminal": "yes"}})",
                              R"({"clientCapabilities": {"fs": {"readTextFile": 1}}})"}) {
    CHECK_FALSE(acp::parse_editor_capabilities(json::parse(hostile)).any());
  }
}

TEST_CASE("config options offer the modes and the models, the current one included", "[acp]") {
  const std::vector<acp::ModelOption> models{{"anthropic:a", "a (anthropic)", ""},
                                             {"anthropic:b", "b (anthropic)", "default"}};
  auto options = acp::config_options("plan", "openai:gpt", models);
  REQUIRE(options.size() == 2);
  CHECK(options[0]["id"] == "mode");
  CHECK(options[0]["category"] == "mode");
  CHECK(options[0]["currentValue"] == "plan");
  CHECK(options[0]["options"].size() == 4);
  CHECK(options[1]["id"] == "model");
  CHECK(options[1]["currentValue"] == "openai:gpt");
  REQUIRE(options[1]["options"].size() == 3);  // the current one first, not in the list
  CHECK(options[1]["options"][0]["value"] == "openai:gpt");
  CHECK(options[1]["options"][2]["description"] == "default");
  CHECK(acp::config_options("", "", {})[0]["currentValue"] == "ask");
  CHECK(acp::config_options("", "", {}).size() == 1);  // no model known: no model option
}
