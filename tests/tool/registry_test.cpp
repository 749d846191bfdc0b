#include <catch2/catch.hpp>

#include "ava/tool/registry.hpp"
#include "support/run_awaitable.hpp"

TEST_CASE("the default tools are read, write, edit and bash", "[tool][registry]") {
  const auto registry = ava::tool::default_tools();
  std::vector<std::string> names;
  for (const auto& spec : registry.specs()) names.push_back(spec.name);
  CHECK(names == std::vector<std::string>{"read", "write", "edit", "bash"});
  CHECK(registry.find("bash")->spec().category == ava::tool::Category::shell);
  CHECK(registry.find("edit")->spec().category == ava::tool::Category::fs);
  CHECK(registry.find("nope") == nullptr);
}

TEST_CASE("default tool descriptions and schemas stay small", "[tool][registry]") {
  std::size_t total = 0;
  for (const auto& spec : ava::tool::default_tools().specs()) {
    total += spec.description.size() + spec.parameters.dump().size();
  }
  INFO("characters sent with every request: " << total);
  CHECK(total < 3000);
}

TEST_CASE("the model-facing edit schema is the batch form", "[tool][registry]") {
  const auto registry = ava::tool::default_tools();
  const auto& parameters = registry.find("edit")->spec().parameters;
  CHECK(parameters["required"] == nlohmann::json{"path", "edits"});
  CHECK_FALSE(parameters["properties"].contains("old_string"));
}

namespace {

class ThrowingTool final : public ava::tool::Tool {
 public:
  const ava::tool::ToolSpec& spec() const override { return spec_; }
  boost::asio::awaitable<ava::Result<ava::tool::ToolResult>> execute(
      const nlohmann::json& arguments, ava::tool::ToolContext&) override {
    (void)arguments.at("missing");  // throws: a bug in the tool
    co_return ava::tool::ToolResult::text("unreachable");
  }

 private:
  ava::tool::ToolSpec spec_{.name = "throws", .description = "", .parameters = {}};
};

}  // namespace

TEST_CASE("an exception escaping a tool becomes an internal error", "[tool][registry]") {
  ThrowingTool tool;
  ava::tool::ToolContext context;
  const auto result =
      ava::test::run_awaitable(ava::tool::invoke(tool, nlohmann::json::object(), context));
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ava::ErrorCode::internal);
  CHECK(result.error().message.starts_with("tool throws failed:"));
}
