#pragma once

// Forward declarations of the tool package (namespace ava::tool).
namespace ava::tool {}
