#pragma once

#include <filesystem>
#include <optional>

#include "app/http_server.hpp"

namespace ava::app {

// Where the built web UI is: AVA_WEB_ROOT, else share/ava/web beside the
// installed binary, else <build>/web/dist of the build tree the binary is
// in. nullopt when none has an index.html.
std::optional<std::filesystem::path> find_web_root();

// Serves files below `root` (index.html for unknown paths without an
// extension, so client-side routes load the app). Without a root, `/` is a
// short page that says the web UI is not built and where the API is.
Handler static_files(std::optional<std::filesystem::path> root);

}  // namespace ava::app
