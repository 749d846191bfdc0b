#pragma once

// Forward declarations of the protocol package (namespace ava::protocol).
namespace ava::protocol {}
