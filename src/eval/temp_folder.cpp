#include "eval/temp_folder.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ava::eval {
namespace fs = std::filesystem;

Result<TempFolder> TempFolder::create(const std::string& prefix) {
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / (prefix + "-XXXXXX")).string();
  if (ec || ::mkdtemp(pattern.data()) == nullptr) {
    return fail(ErrorCode::io, fmt::format("cannot create a temporary folder: {}",
                                           ec ? ec.message() : std::strerror(errno)));
  }
  return TempFolder(fs::path(pattern));
}

TempFolder::~TempFolder() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace ava::eval
