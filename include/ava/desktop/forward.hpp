#pragma once

// Forward declarations of the desktop package (namespace ava::desktop).
namespace ava::desktop {}
