#pragma once

// A deliberately wrong header: check_includes.cmake must reject each of the
// first three lines.
#include <QObject>

#include "ava/base/error.hpp"
#include "ava/cli/cli.hpp"
#include "proc/sys.hpp"
