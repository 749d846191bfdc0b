// shout-agent: embeds Ava's agent in a program of one's own. It offers the
// model one tool of its own (`shout`, which upper-cases text) instead of
// Ava's file and shell tools, gives it its own system prompt, and prints
// what happens. The provider is Ava's usual choice (settings.json, auth.json
// and the environment of AVA_HOME), so `AVA_PROVIDER=mock` runs offline.
//
//   shout-agent "make this loud: hello"

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <nlohmann/json.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/home.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "ava/tool/registry.hpp"
#include "ava/tool/tool.hpp"

namespace asio = boost::asio;

namespace {

// The embedder's own tool.
class ShoutTool final : public ava::tool::Tool {
 public:
  const ava::tool::ToolSpec& spec() const override { return spec_; }

  asio::awaitable<ava::Result<ava::tool::ToolResult>> execute(const nlohmann::json& arguments,
                                                              ava::tool::ToolContext&) override {
    std::string text = arguments.at("text").get<std::string>();
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    co_return ava::tool::ToolResult::text(text);
  }

 private:
  ava::tool::ToolSpec spec_{.name = "shout",
                            .description = "Returns the text in capital letters",
                            .parameters = {{"type", "object"},
                                           {"properties", {{"text", {{"type", "string"}}}}},
                                           {"required", {"text"}}},
                            .category = ava::tool::Category::other,
                            .read_only = true};
};

// Ava's provider choice, from the home's settings and the environment.
ava::agent::ProviderFactory providers(asio::any_io_executor executor, ava::llm::Settings settings) {
  return [executor, settings](
             const ava::agent::ModelChoice& choice) -> ava::Result<ava::agent::ProviderBinding> {
    AVA_TRY(auto selected,
            ava::llm::make_provider(executor, settings,
                                    {.provider = choice.provider, .model = choice.model}));
    const auto info = ava::llm::model_info(selected.model, &settings);
    return ava::agent::ProviderBinding{.provider = std::move(selected.provider),
                                       .provider_name = selected.provider_name,
                                       .model = selected.model,
                                       .context_window = info.context_window};
  };
}

void print(const ava::session::Event& event) {
  if (const auto* message = std::get_if<ava::session::AssistantMessage>(&event.body)) {
    for (const auto& block : message->content) {
      if (const auto* text = std::get_if<ava::content::TextBlock>(&block))
        std::printf("assistant: %s\n", text->text.c_str());
    }
  } else if (const auto* result = std::get_if<ava::session::ToolResult>(&event.body)) {
    for (const auto& part : result->content) {
      if (const auto* text = std::get_if<ava::content::TextBlock>(&part))
        std::printf("%s -> %s\n", result->tool_name.c_str(), text->text.c_str());
    }
  } else if (const auto* ended = std::get_if<ava::session::TurnEnded>(&event.body)) {
    std::printf("turn ended: %s\n", std::string(ava::session::to_string(ended->reason)).c_str());
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: shout-agent PROMPT\n");
    return 2;
  }
  auto home = ava::base::Home::resolve();
  if (!home) return std::fprintf(stderr, "%s\n", home.error().message.c_str()), 1;
  auto settings = ava::llm::load_settings(*home);
  if (!settings) return std::fprintf(stderr, "%s\n", settings.error().message.c_str()), 1;

  asio::io_context io;
  ava::tool::ToolRegistry tools;
  tools.add(std::make_unique<ShoutTool>());
  ava::agent::AgentOptions options;
  options.provider_factory = providers(io.get_executor(), std::move(*settings));
  options.cwd = std::filesystem::current_path();
  options.tools = std::move(tools);
  options.system_prompt = "You make text loud. Use the shout tool, then say what it gave.";

  // The conversation's durable log, in this process's own folder.
  const auto log =
      home->root() / "embedded" / ("shout-" + std::to_string(::getpid()) + ".jsonl.zst");
  std::filesystem::create_directories(log.parent_path());
  auto agent = ava::agent::Agent::create(io.get_executor(), log, std::move(options));
  if (!agent) return std::fprintf(stderr, "%s\n", agent.error().message.c_str()), 1;
  (*agent)->subscribe(print);
  if (auto sent = (*agent)->followup(argv[1]); !sent) {
    std::fprintf(stderr, "%s\n", sent.error().message.c_str());
    return 1;
  }
  auto done = asio::co_spawn(
      io,
      [&]() -> asio::awaitable<ava::Result<void>> {
        co_await (*agent)->wait_idle();
        co_return co_await (*agent)->close();
      },
      asio::use_future);
  io.run();
  const auto closed = done.get();
  const auto status = (*agent)->status();
  std::printf("session %s, %lld input and %lld output tokens\n", status.session_id.c_str(),
              static_cast<long long>(status.usage.input_tokens),
              static_cast<long long>(status.usage.output_tokens));
  return closed && status.last_error.empty() ? 0 : 1;
}
