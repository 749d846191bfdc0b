#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/content/items.hpp"

namespace ava::acp {

// What a session/prompt gives the agent: its text and its images.
struct PromptInput {
  std::string text;
  std::vector<content::ImageBlock> images;
};

// The largest image accepted, decoded (as base::Limits::image_bytes).
inline constexpr std::size_t max_image_bytes = std::size_t{5} * 1024 * 1024;

// A session/prompt's content blocks as the input Ava's agent takes: text as
// it is, a resource link as an @path mention (file: URIs) or its URI, an
// embedded text resource as the file's content in a <context> element
// naming it, an image (png, jpeg, gif or webp, its bytes of the type it
// names, at most max_image_bytes) as an attachment. invalid_argument for a
// prompt that is not an array, audio, a binary resource, a bad image, or
// one without any text.
Result<PromptInput> prompt_input(const nlohmann::json& blocks);

}  // namespace ava::acp
