#pragma once

// The application boundary of Ava's core: see ava/agent/agent.hpp.
#include "ava/agent/agent.hpp"  // IWYU pragma: export
