#pragma once

// Forward declarations of the agent package (namespace ava::agent).
namespace ava::agent {}
