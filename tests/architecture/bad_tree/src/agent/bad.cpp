// A deliberately wrong source file: check_includes.cmake must reject the
// private header of another package, even one whose package may be used.
#include "server/api.hpp"
#include "tool/file_io.hpp"

#include "agent/core.hpp"
