// A ToolSource whose tools change while the agent runs (as an MCP server's
// do after notifications/tools/list_changed).
#include <mutex>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/tool/source.hpp"

using namespace ava;

namespace {

class FakeSource;

// A tool that answers with its name; calling "change" swaps the source's list.
class NamedTool final : public tool::Tool {
 public:
  NamedTool(std::string name, FakeSource* source) : source_(source) {
    spec_.name = std::move(name);
    spec_.description = "test tool " + spec_.name;
    spec_.parameters = {{"type", "object"}};
  }
  const tool::ToolSpec& spec() const override { return spec_; }
  boost::asio::awaitable<Result<tool::ToolResult>> execute(const nlohmann::json&,
                                                           tool::ToolContext&) override;

 private:
  tool::ToolSpec spec_;
  FakeSource* source_;
};

class FakeSource final : public tool::ToolSource {
 public:
  explicit FakeSource(std::vector<std::string> names) : names_(std::move(names)) {}
  std::uint64_t generation() const override {
    std::lock_guard lock(mutex_);
    return generation_;
  }
  std::vector<std::unique_ptr<tool::Tool>> tools() override {
    std::lock_guard lock(mutex_);
    ++listed_;
    std::vector<std::unique_ptr<tool::Tool>> out;
    for (const auto& name : names_) out.push_back(std::make_unique<NamedTool>(name, this));
    return out;
  }
  void set(std::vector<std::string> names) {
    std::lock_guard lock(mutex_);
    names_ = std::move(names);
    ++generation_;
  }
  int listed() const {
    std::lock_guard lock(mutex_);
    return listed_;
  }
  std::vector<std::string> next;  // what "change" switches to

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::uint64_t generation_ = 1;
  int listed_ = 0;
};

boost::asio::awaitable<Result<tool::ToolResult>> NamedTool::execute(const nlohmann::json&,
                                                                    tool::ToolContext&) {
  if (spec_.name == "change") source_->set(source_->next);
  co_return tool::ToolResult::text("ran " + spec_.name);
}

std::vector<std::string> names_of(const llm::Request& request) {
  std::vector<std::string> names;
  for (const auto& spec : request.tools) names.push_back(spec.name);
  return names;
}

}  // namespace

TEST_CASE("a source's changed tools reach the next request, never the running step",
          "[agent][tools]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  // Step 1 calls "change" (the list becomes [added, change]) and then
  // "gone", which the running step still has; step 2 sees the new list.
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "change", "arguments": {}}},
               {"toolCall": {"id": "c2", "name": "gone", "arguments": {}}}]},
    {"steps": [{"toolCall": {"id": "c3", "name": "added", "arguments": {}}}]},
    {"steps": [{"text": "Done."}]}
  ]})");
  auto source = std::make_shared<FakeSource>(std::vector<std::string>{"gone", "change"});
  source->next = {"added", "change"};
  auto options = test::basic_options(test::scripted_factory(script, journal), dir.path());
  options.tool_source = source;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  CHECK(names_of((*agent)->next_request()) ==
        std::vector<std::string>{"read", "write", "edit", "bash", "gone", "change"});

  REQUIRE((*agent)->followup("go"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 3);
  CHECK(names_of(requests[0]) ==
        std::vector<std::string>{"read", "write", "edit", "bash", "gone", "change"});
  // The agent's own tools stay first and in place; the source's follow.
  CHECK(names_of(requests[1]) ==
        std::vector<std::string>{"read", "write", "edit", "bash", "added", "change"});
  CHECK(names_of(requests[2]) == names_of(requests[1]));
  CHECK(source->listed() == 2);  // once at creation, once after the change

  const auto results =
      test::events_of<session::ToolResult>(test::read_events((*agent)->log_path()));
  REQUIRE(results.size() == 3);
  for (const auto& result : results) {
    INFO(result.tool_name);
    CHECK(result.status == session::ToolStatus::ok);
  }
  CHECK(std::get<llm::TextBlock>(results[1].content[0]).text == "ran gone");
  CHECK(std::get<llm::TextBlock>(results[2].content[0]).text == "ran added");
  CHECK(test::check_calls_paired(test::read_events((*agent)->log_path())) == "");
}

TEST_CASE("a source tool never displaces one of the agent's own", "[agent][tools]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto source = std::make_shared<FakeSource>(std::vector<std::string>{"bash", "extra"});
  auto options = test::basic_options(test::echo_factory(), dir.path());
  options.tool_source = source;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  const auto request = (*agent)->next_request();
  CHECK(names_of(request) == std::vector<std::string>{"read", "write", "edit", "bash", "extra"});
  CHECK(request.tools[3].description != "test tool bash");
  runtime.close(**agent);
}
