#pragma once

// A deliberately wrong header: check_includes.cmake must reject both lines.
#include <QObject>

#include "ava/app/cli.hpp"
