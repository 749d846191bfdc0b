#pragma once

// Forward declarations of the proc package (namespace ava::proc).
namespace ava::proc {}
