#include "ava/mcp/adapt.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/proc/capture.hpp"
#include "ava/tool/text.hpp"

namespace ava::mcp {

using nlohmann::json;

namespace {

const std::set<std::string, std::less<>> model_image_types = {"image/png", "image/jpeg",
                                                              "image/gif", "image/webp"};

std::string field(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// Decoded size of base64 text, without decoding it.
std::size_t base64_bytes(std::string_view data) {
  std::size_t padding = 0;
  while (!data.empty() && (data.back() == '=' || data.back() == '\n')) {
    if (data.back() == '=') ++padding;
    data.remove_suffix(1);
  }
  const std::size_t full = (data.size() + padding) / 4 * 3;
  return full > padding ? full - std::min<std::size_t>(padding, 2) : 0;
}

class Builder {
 public:
  explicit Builder(const base::Limits& limits) : limits_(limits) {}

  void text(const std::string& value) {
    if (value.empty()) return;
    result_.content.emplace_back(tool::TextContent{base::utf8::make_valid(value)});
  }

  // Binary data the model cannot take: a line that says what it was.
  void placeholder(std::string_view kind, std::string_view mime, std::string_view data,
                   std::string_view why) {
    text(fmt::format("[{} {}, {}: {}]", kind, mime.empty() ? "of unknown type" : mime,
                     tool::text::human_bytes(base64_bytes(data)), why));
  }

  void image(const std::string& mime, const std::string& data, std::string_view kind) {
    if (!model_image_types.contains(mime)) {
      placeholder(kind, mime, data, "not a type the model can see");
    } else if (base64_bytes(data) > limits_.image_bytes) {
      placeholder(
          kind, mime, data,
          fmt::format("larger than the {} limit", tool::text::human_bytes(limits_.image_bytes)));
    } else {
      result_.content.emplace_back(tool::ImageContent{.media_type = mime, .data = data});
    }
  }

  void resource(const json& resource) {
    const auto uri = field(resource, "uri");
    const auto mime = field(resource, "mimeType");
    if (resource.contains("text")) {
      text(fmt::format("[resource {}{}]\n{}", uri, mime.empty() ? "" : " (" + mime + ")",
                       field(resource, "text")));
    } else if (mime.starts_with("image/")) {
      image(mime, field(resource, "blob"), fmt::format("resource {}", uri));
    } else {
      placeholder(fmt::format("resource {}", uri), mime, field(resource, "blob"),
                  "binary data not shown");
    }
  }

  void link(const json& item) {
    std::string line =
        fmt::format("[resource link: {} <{}>", field(item, "name"), field(item, "uri"));
    if (const auto mime = field(item, "mimeType"); !mime.empty()) line += " (" + mime + ")";
    if (const auto about = field(item, "description"); !about.empty()) line += ": " + about;
    text(line + "]");
  }

  void block(const json& item) {
    const auto type = field(item, "type");
    if (type == "text") {
      text(field(item, "text"));
    } else if (type == "image") {
      image(field(item, "mimeType"), field(item, "data"), "image");
    } else if (type == "audio") {
      placeholder("audio", field(item, "mimeType"), field(item, "data"), "not shown to the model");
    } else if (type == "resource_link") {
      link(item);
    } else if (type == "resource" && item.contains("resource") && item["resource"].is_object()) {
      resource(item["resource"]);
    } else {
      text(fmt::format("[MCP content of type {} is not supported]", type.empty() ? "?" : type));
    }
  }

  // All text within tool_output: each block gets what is left of the budget.
  tool::ToolResult finish(bool is_error) {
    std::size_t budget = limits_.tool_output;
    for (auto& content : result_.content) {
      auto* block = std::get_if<tool::TextContent>(&content);
      if (block == nullptr) continue;
      if (block->text.size() > budget) {
        block->text = budget > 64 ? proc::truncate_middle(block->text, budget)
                                  : fmt::format("[{} bytes omitted]", block->text.size());
        truncated_ = true;
      }
      budget -= std::min(budget, block->text.size());
    }
    if (truncated_) {
      result_.details["truncated"] = true;
      result_.content.emplace_back(tool::TextContent{fmt::format(
          "[MCP output truncated to the {} limit]", tool::text::human_bytes(limits_.tool_output))});
    }
    if (result_.content.empty()) result_.content.emplace_back(tool::TextContent{"(no content)"});
    result_.is_error = is_error;
    return std::move(result_);
  }

  bool has_text() const {
    return std::ranges::any_of(result_.content, [](const auto& content) {
      return std::holds_alternative<tool::TextContent>(content);
    });
  }

  tool::ToolResult& result() { return result_; }

 private:
  const base::Limits& limits_;
  tool::ToolResult result_;
  bool truncated_ = false;
};

}  // namespace

tool::ToolResult adapt_call_result(const json& result, const base::Limits& limits) {
  Builder builder(limits);
  if (const auto content = result.find("content"); content != result.end() && content->is_array()) {
    for (const auto& item : *content) {
      if (item.is_object()) builder.block(item);
    }
  }
  if (const auto structured = result.find("structuredContent");
      structured != result.end() && !structured->is_null()) {
    auto dumped = structured->dump(-1, ' ', false, json::error_handler_t::replace);
    if (!builder.has_text()) builder.text(dumped);
    if (dumped.size() <= limits.tool_output) {
      builder.result().details["structuredContent"] = *structured;
    }
  }
  const auto is_error = result.find("isError");
  return builder.finish(is_error != result.end() && is_error->is_boolean() &&
                        is_error->get<bool>());
}

}  // namespace ava::mcp
