#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ava/httpd/http_server.hpp"

namespace ava::httpd {

// Where the built web UI is: AVA_WEB_ROOT, else share/ava/web beside the
// installed binary, else <build>/web/dist of the build tree the binary is
// in. nullopt when none has an index.html. The root is canonical.
std::optional<std::filesystem::path> find_web_root();

// The file below the canonical `root` that decoded path `segments` name:
// index.html for none and for a client-side route (a last segment without
// an extension that names no file). not_found for empty, dot or hidden
// segments, backslashes and NULs, anything that resolves (symlinks
// followed) outside the root, and files of a type the bundle does not have.
Result<std::filesystem::path> resolve_static_file(const std::filesystem::path& root,
                                                  const std::vector<std::string>& segments);

// The Content-Type of a bundle file; nullopt for any other extension.
std::optional<std::string> static_content_type(const std::filesystem::path& file);

// Serves files below `root` (see resolve_static_file). Without a root, `/` is
// a short page that says the web UI is not built and where the API is.
Handler static_files(std::optional<std::filesystem::path> root);

}  // namespace ava::httpd
