#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

namespace ava::acp {

// A session/prompt's content blocks as the input text Ava's agent takes:
// text as it is, a resource link as an @path mention (file: URIs) or its
// URI, an embedded text resource as the file's content in a <context>
// element naming it. invalid_argument for a prompt that is not an array,
// an image or audio block (not offered in the capabilities), a binary
// resource, or one without any text.
Result<std::string> prompt_text(const nlohmann::json& blocks);

}  // namespace ava::acp
