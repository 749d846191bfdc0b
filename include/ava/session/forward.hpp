#pragma once

// Forward declarations of the session package (namespace ava::session).
namespace ava::session {}
