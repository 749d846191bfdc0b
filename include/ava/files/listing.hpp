#pragma once

#include <cstddef>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/files/paths.hpp"
#include "ava/protocol/files.hpp"

namespace ava::files {

// The most entries one listing holds; a larger folder is cut (truncated).
inline constexpr std::size_t max_listing_entries = 5000;

// One folder of the project (`relative` in clean_relative's form), folders
// first, then by name ignoring case. `.git` is never listed; what Git
// ignores is left out when the project is in a Git work tree. Symbolic links
// show what they lead to inside the project, "link" when they lead outside
// or nowhere (never what lies outside).
boost::asio::awaitable<Result<protocol::FileListing>> list_folder(
    const ProjectRoot& root, std::string relative, std::size_t max_entries = max_listing_entries);

// "a/b" + "c" -> "a/b/c"; "" + "c" -> "c".
std::string join(std::string_view folder, std::string_view name);

}  // namespace ava::files
