// Building provider requests from the log's context.

#include <boost/asio/co_spawn.hpp>

#include "core.hpp"

namespace ava::agent {

namespace {

// A rough, provider-neutral token estimate (~4 characters per token); an
// image costs about what providers charge for a mid-sized one. Used only to
// decide when to compact, where being early by a little is harmless.
constexpr std::int64_t chars_per_token = 4;
constexpr std::int64_t image_tokens = 1600;

std::int64_t block_chars(const llm::ContentBlock& block, std::int64_t& images) {
  return std::visit(
      [&](const auto& b) -> std::int64_t {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, llm::TextBlock>) {
          return static_cast<std::int64_t>(b.text.size());
        } else if constexpr (std::is_same_v<T, llm::ImageBlock>) {
          ++images;
          return 0;
        } else if constexpr (std::is_same_v<T, llm::ThinkingBlock>) {
          return static_cast<std::int64_t>(b.text.size() + b.redacted_data.size() +
                                           b.encrypted_content.size() / 2);
        } else if constexpr (std::is_same_v<T, llm::ToolCallBlock>) {
          return static_cast<std::int64_t>(b.name.size() + b.arguments.size());
        } else {
          std::int64_t total = 0;
          for (const auto& content : b.content) {
            if (const auto* text = std::get_if<llm::TextBlock>(&content)) {
              total += static_cast<std::int64_t>(text->text.size());
            } else {
              ++images;
            }
          }
          return total;
        }
      },
      block);
}

}  // namespace

std::int64_t estimate_message_tokens(const llm::Message& message) {
  std::int64_t images = 0;
  std::int64_t chars = 8;  // role and framing
  for (const auto& block : message.content) chars += block_chars(block, images);
  return chars / chars_per_token + images * image_tokens;
}

std::int64_t estimate_tokens(const llm::Request& request) {
  auto chars = static_cast<std::int64_t>(request.system.size());
  for (const auto& spec : request.tools) {
    chars += static_cast<std::int64_t>(spec.name.size() + spec.description.size() +
                                       spec.parameters.dump().size());
  }
  std::int64_t tokens = chars / chars_per_token;
  for (const auto& message : request.messages) tokens += estimate_message_tokens(message);
  return tokens;
}

std::vector<llm::ToolSpec> to_llm_specs(const tool::ToolRegistry& tools) {
  std::vector<llm::ToolSpec> specs;
  for (const auto& spec : tools.specs()) {
    specs.push_back(llm::ToolSpec{
        .name = spec.name, .description = spec.description, .parameters = spec.parameters});
  }
  return specs;
}

// Caller holds mutex_ (max_output_tokens_ is shared with set_model).
llm::Request AgentCore::build_request(const session::Context& context) const {
  llm::Request request{.model = context.model,
                       .system = system_prompt_,
                       .messages = context.messages,
                       .tools = tool_specs_,
                       .max_output_tokens = max_output_tokens_};
  if (!context.turn_allowed_tools.empty()) {
    std::erase_if(request.tools,
                  [&](const llm::ToolSpec& spec) { return !offered_in_turn(context, spec.name); });
  }
  // A /plan turn offers only what cannot change anything (the memory tool
  // reads too, but its writes would be refused: it stays out).
  if (context.turn_plan) {
    std::erase_if(request.tools,
                  [&](const llm::ToolSpec& spec) { return !read_only_tools_.contains(spec.name); });
  }
  return request;
}

llm::Request AgentCore::next_request() const {
  std::lock_guard lock(mutex_);
  // What the next step would claim, applied to a copy of the context.
  session::ContextBuilder builder = context_;
  const auto& context = builder.context();
  const bool in_turn = !context.open_turn.empty();
  std::vector<std::string> ids;
  bool took_followup = false;
  for (const auto& input : context.pending) {
    if (input.kind == session::InputKind::steer || (!in_turn && !took_followup)) {
      took_followup = took_followup || input.kind == session::InputKind::followup;
      ids.push_back(input.input_id);
    }
  }
  if (!ids.empty()) {
    builder.apply(session::Event{.seq = context.last_seq + 1,
                                 .body = session::InputClaimed{.input_ids = std::move(ids)}});
  }
  return build_request(builder.context());
}

ContextReport AgentCore::context_report() const {
  std::lock_guard lock(mutex_);
  const auto& context = context_.context();
  const llm::Request request = build_request(context);
  ContextReport report{.messages = context.messages.size(),
                       .estimated_tokens = estimate_tokens(request),
                       .context_window = context_window_,
                       .system_prompt_chars = system_prompt_.size(),
                       .compactions = compactions_,
                       .unpaired_calls = context.unpaired_calls};
  for (const auto& spec : request.tools) {
    report.tool_schema_chars +=
        spec.name.size() + spec.description.size() + spec.parameters.dump().size();
  }
  for (const auto& input : context.pending) report.pending_inputs.push_back(input.input_id);
  report.context_files = project_context_.files;
  return report;
}

}  // namespace ava::agent
