#pragma once

#include <string_view>

namespace ava::base {

// The project version from CMake's project(VERSION ...).
std::string_view version() noexcept;

}  // namespace ava::base
