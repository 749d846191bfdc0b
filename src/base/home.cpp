#include "ava/base/home.hpp"

#include <algorithm>

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

namespace ava::base {

namespace fs = std::filesystem;

std::optional<std::string> process_env(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read-only use
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

Result<void> ensure_private_dir(const fs::path& path) {
  if (path.empty()) return fail(ErrorCode::invalid_argument, "empty directory path");
  fs::path partial;
  for (const auto& part : path) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return fail_errno("mkdir " + partial.string(), errno);
    }
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return fail_errno("stat " + path.string(), errno);
  if (!S_ISDIR(info.st_mode)) {
    return fail(ErrorCode::conflict, path.string() + " exists and is not a directory");
  }
  if ((info.st_mode & 0077) != 0 && ::chmod(path.c_str(), 0700) != 0) {
    return fail_errno("chmod 0700 " + path.string(), errno);
  }
  return {};
}

Result<Home> Home::resolve(const EnvLookup& env) {
  if (auto explicit_home = env("AVA_HOME"); explicit_home && !explicit_home->empty()) {
    return at(fs::path(*explicit_home));
  }
  auto user_home = env("HOME");
  if (!user_home || user_home->empty()) {
    return fail(ErrorCode::not_found, "neither AVA_HOME nor HOME is set; set AVA_HOME to a folder");
  }
  return at(fs::path(*user_home) / ".ava");
}

Result<Home> Home::at(fs::path root) {
  if (root.is_relative()) {
    std::error_code ec;
    root = fs::absolute(root, ec);
    if (ec) return fail(ErrorCode::io, "cannot make AVA_HOME absolute: " + ec.message());
  }
  root = root.lexically_normal();
  // "/x/y/" and "/x/y" name the same home.
  if (!root.has_filename() && root != root.root_path()) root = root.parent_path();
  // g++ 12's std::expected has no monadic operations (transform_error).
  if (auto made = ensure_private_dir(root); !made) {
    return std::unexpected(std::move(made).error().with_context("AVA_HOME"));
  }
  return Home(std::move(root));
}

Result<fs::path> Home::ensure_dir(std::string_view name) const {
  auto path = root_ / name;
  AVA_TRY_VOID(ensure_private_dir(path));
  return path;
}

Result<std::optional<std::string>> active_profile(const EnvLookup& env) {
  auto name = env("AVA_PROFILE");
  if (!name || name->empty()) return std::optional<std::string>();
  const bool valid =
      name->size() <= 64 && name->front() != '.' && std::ranges::all_of(*name, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
      });
  if (!valid) {
    return fail(ErrorCode::invalid_argument,
                "a profile name is 1-64 of A-Z a-z 0-9 . _ - (AVA_PROFILE or --profile)");
  }
  return name;
}

Result<std::optional<fs::path>> profile_settings_file(const fs::path& home, const EnvLookup& env) {
  AVA_TRY(const auto name, active_profile(env));
  if (!name) return std::optional<fs::path>();
  fs::path file = home / "profiles" / (*name + ".json");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return fail(ErrorCode::not_found,
                "profile " + *name + " has no settings file: create " + file.string());
  }
  return file;
}

}  // namespace ava::base
