#include "ava/acp/prompt.hpp"

#include <fmt/format.h>

#include "ava/base/base64.hpp"
#include "ava/base/json.hpp"

namespace ava::acp {

namespace {

using nlohmann::json;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// file:///a/b%20c -> /a/b c; anything else (or a malformed escape, or one
// that decodes to a NUL) stays the URI as given.
std::string path_of(const std::string& uri) {
  constexpr std::string_view scheme = "file://";
  if (!uri.starts_with(scheme)) return uri;
  std::string path;
  for (std::size_t at = scheme.size(); at < uri.size(); ++at) {
    if (uri[at] != '%') {
      path += uri[at];
      continue;
    }
    const int high = at + 2 < uri.size() ? hex_digit(uri[at + 1]) : -1;
    const int low = high < 0 ? -1 : hex_digit(uri[at + 2]);
    if (low < 0 || (high == 0 && low == 0)) return uri;
    path += static_cast<char>(high * 16 + low);
    at += 2;
  }
  return path;
}

}  // namespace

namespace {

Result<content::ImageBlock> image_of(const json& block) {
  const auto type = base::json_value(block, "mimeType", std::string());
  const auto data = base::json_value(block, "data", std::string());
  const auto decoded = base::base64_decode(data, max_image_bytes);
  if (!decoded) {
    return fail(ErrorCode::invalid_argument,
                "an image must be base64 data of at most 5 MiB (decoded)");
  }
  const auto detected = base::image_media_type(*decoded);
  if (!detected || *detected != type) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("an image must be png, jpeg, gif or webp, and its bytes of the "
                            "mimeType it names (\"{}\")",
                            type.substr(0, 40)));
  }
  return content::ImageBlock{.media_type = type, .data = data};
}

}  // namespace

Result<PromptInput> prompt_input(const json& blocks) {
  if (!blocks.is_array()) {
    return fail(ErrorCode::invalid_argument, "prompt must be an array of content blocks");
  }
  PromptInput input;
  std::string& text = input.text;
  auto add = [&text](const std::string& part) {
    if (!text.empty() && !text.ends_with('\n') && !part.starts_with('\n')) text += '\n';
    text += part;
  };
  for (const auto& block : blocks) {
    const auto type = base::json_value(block, "type", std::string());
    if (type == "text") {
      add(base::json_value(block, "text", std::string()));
    } else if (type == "resource_link") {
      add("@" + path_of(base::json_value(block, "uri", std::string())));
    } else if (type == "resource") {
      const auto resource = base::json_value(block, "resource", json::object());
      if (!resource.is_object() || !resource.contains("text") || !resource["text"].is_string()) {
        return fail(ErrorCode::invalid_argument, "only text resources can be embedded");
      }
      add(fmt::format("<context file=\"{}\">\n{}\n</context>",
                      path_of(base::json_value(resource, "uri", std::string())),
                      resource["text"].get<std::string>()));
    } else if (type == "image") {
      AVA_TRY(auto image, image_of(block));
      input.images.push_back(std::move(image));
    } else {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("prompt content of type \"{}\" is not supported (text, image, "
                              "resource_link, resource)",
                              type.substr(0, 40)));
    }
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(ErrorCode::invalid_argument, "the prompt has no text");
  }
  return input;
}

}  // namespace ava::acp
