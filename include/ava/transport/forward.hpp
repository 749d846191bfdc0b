#pragma once

// Forward declarations of the transport package (namespace ava::transport).
namespace ava::transport {}
