// read, write and edit through the editor (fs/read_text_file and
// fs/write_text_file): the model sees what the user sees, unsaved buffers
// included, and the editor tracks what the agent changed.

#include "ava/acp/editor_tools.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "ava/base/base64.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/tool/files.hpp"
#include "ava/tool/text.hpp"
#include "editor_bash.hpp"

namespace ava::acp {

namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

constexpr auto file_timeout = std::chrono::seconds(60);
constexpr std::size_t sniff_bytes = std::size_t{8} * 1024;
// Larger files come from disk: their text, JSON-escaped, must fit one line
// of the protocol (acp::max_message_bytes, 32 MiB) even at twice the size.
constexpr std::size_t max_editor_file_bytes = std::size_t{8} * 1024 * 1024;

// Files an editor cannot hand over as text are read from disk by the
// built-in tool: images, binaries, folders, and large files (a buffer that
// big is rarely unsaved, and the answer would be huge).
bool read_from_disk(const fs::path& path, const base::Limits& limits) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return errno != ENOENT;  // a new buffer may exist only in the editor
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return true;
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size > std::min(limits.edit_file_bytes, max_editor_file_bytes)) return true;
  std::string head(std::min(size, sniff_bytes), '\0');
  const ssize_t got = ::pread(fd.get(), head.data(), head.size(), 0);
  head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return base::image_media_type(head).has_value() || tool::text::looks_binary(head);
}

// The editor's text of a file, or why not (for the model).
asio::awaitable<Result<std::string>> editor_text(EditorLink& link, const fs::path& path,
                                                 const base::Limits& limits) {
  json request{{"path", path.string()}};
  AVA_CO_TRY(auto answer,
             co_await link.call("fs/read_text_file", std::move(request), file_timeout));
  if (!answer.is_object() || !answer.contains("content") || !answer["content"].is_string()) {
    co_return fail(ErrorCode::protocol, "the editor's answer has no text content");
  }
  auto text = answer["content"].get<std::string>();
  if (text.size() > limits.edit_file_bytes) {
    co_return fail(
        ErrorCode::limit_exceeded,
        fmt::format("it is larger than {}", tool::text::human_bytes(limits.edit_file_bytes)));
  }
  co_return text;
}

asio::awaitable<Result<void>> editor_write(EditorLink& link, const fs::path& path,
                                           const std::string& content) {
  // As the built-in write does; an editor need not create folders.
  std::error_code ignored;
  fs::create_directories(path.parent_path(), ignored);
  json request{{"path", path.string()}, {"content", content}};
  auto answer = co_await link.call("fs/write_text_file", std::move(request), file_timeout);
  if (!answer) co_return std::unexpected(std::move(answer).error());
  co_return Result<void>{};
}

// Holds the built-in tool: its spec and argument schema, and the fallback.
class EditorTool : public tool::Tool {
 public:
  EditorTool(std::shared_ptr<EditorLink> link, std::unique_ptr<tool::Tool> builtin)
      : link_(std::move(link)), builtin_(std::move(builtin)) {}
  const tool::ToolSpec& spec() const override { return builtin_->spec(); }
  const json& accepted_arguments() const override { return builtin_->accepted_arguments(); }

 protected:
  EditorLink& link() { return *link_; }
  tool::Tool& builtin() { return *builtin_; }

 private:
  std::shared_ptr<EditorLink> link_;
  std::unique_ptr<tool::Tool> builtin_;
};

class EditorRead final : public EditorTool {
 public:
  explicit EditorRead(std::shared_ptr<EditorLink> link)
      : EditorTool(std::move(link), tool::make_read_tool()) {}

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    const auto& path_text = arguments.at("path").get_ref<const std::string&>();
    const auto path = tool::resolve_path(context, path_text);
    if (read_from_disk(path, context.limits)) {
      co_return co_await builtin().execute(arguments, context);
    }
    auto text = co_await editor_text(link(), path, context.limits);
    if (!text) {
      co_return tool::ToolResult::error(
          fmt::format("Cannot read {}: {}", path_text, text.error().message));
    }
    co_return tool::read_text(*text, arguments, path, context.limits);
  }
};

class EditorWrite final : public EditorTool {
 public:
  explicit EditorWrite(std::shared_ptr<EditorLink> link)
      : EditorTool(std::move(link), tool::make_write_tool()) {}

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    const auto& path_text = arguments.at("path").get_ref<const std::string&>();
    const auto& content = arguments.at("content").get_ref<const std::string&>();
    const auto path = tool::resolve_path(context, path_text);
    std::error_code ignored;
    const bool created = !fs::exists(path, ignored);
    if (auto written = co_await editor_write(link(), path, content); !written) {
      co_return tool::ToolResult::error(
          fmt::format("Could not write {}: {}", path_text, written.error().message));
    }
    co_return tool::write_report(path_text, path, content.size(), created);
  }
};

class EditorEdit final : public EditorTool {
 public:
  explicit EditorEdit(std::shared_ptr<EditorLink> link)
      : EditorTool(std::move(link), tool::make_edit_tool()) {}

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    const auto path_text = arguments.value("path", arguments.value("file_path", std::string()));
    if (path_text.empty()) co_return co_await builtin().execute(arguments, context);
    const auto path = tool::resolve_path(context, path_text);
    if (read_from_disk(path, context.limits)) {
      co_return co_await builtin().execute(arguments, context);
    }
    auto original = co_await editor_text(link(), path, context.limits);
    if (!original) {
      co_return tool::ToolResult::error(
          fmt::format("Cannot edit {}: {}", path_text, original.error().message));
    }
    auto planned = tool::plan_edit(arguments, *original, path_text, path, context.limits);
    auto* plan = std::get_if<tool::EditPlan>(&planned);
    if (plan == nullptr) co_return std::get<tool::ToolResult>(std::move(planned));
    if (auto written = co_await editor_write(link(), path, plan->updated); !written) {
      co_return tool::ToolResult::error(
          fmt::format("Could not write {}: {}", path_text, written.error().message));
    }
    co_return std::move(plan->report);
  }
};

}  // namespace

tool::ToolRegistry editor_tools(std::shared_ptr<EditorLink> link, EditorToolOptions options) {
  const auto& offered = link->capabilities();
  tool::ToolRegistry tools = tool::default_tools();
  if (offered.read_text_file) tools.add(std::make_unique<EditorRead>(link));
  if (offered.write_text_file) tools.add(std::make_unique<EditorWrite>(link));
  // An edit reads and writes the same text: both through the editor or
  // both from disk, never a mix.
  if (offered.read_text_file && offered.write_text_file) {
    tools.add(std::make_unique<EditorEdit>(link));
  }
  if (offered.terminal && !options.ava_executable.empty()) {
    tools.add(make_editor_bash(link, std::move(options.ava_executable)));
  }
  return tools;
}

}  // namespace ava::acp
