#pragma once

// Forward declarations of the llm package (namespace ava::llm).
namespace ava::llm {}
