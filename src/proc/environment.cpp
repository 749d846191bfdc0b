#include "ava/proc/environment.hpp"

#include <algorithm>
#include <array>
#include <mutex>

#include "ava/base/text.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace ava::proc {
namespace {

std::mutex kept_mutex;
std::vector<std::string>& kept_names() {
  static std::vector<std::string> names;
  return names;
}

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::ranges::find(names, name) != names.end();
}

}  // namespace

bool secret_variable(std::string_view name) {
  static constexpr std::array words = {std::string_view("key"), std::string_view("secret"),
                                       std::string_view("token"), std::string_view("password")};
  const auto lower = base::ascii_lower(name);
  return std::ranges::any_of(
      words, [&](std::string_view word) { return lower.find(word) != std::string::npos; });
}

void set_kept_variables(std::vector<std::string> names) {
  const std::scoped_lock lock(kept_mutex);
  kept_names() = std::move(names);
}

std::vector<std::string> kept_variables() {
  const std::scoped_lock lock(kept_mutex);
  return kept_names();
}

std::vector<std::string> scrub_environment(const std::vector<std::string>& environment,
                                           const std::vector<std::string>& keep) {
  const auto kept = kept_variables();
  std::vector<std::string> out;
  out.reserve(environment.size());
  for (const auto& entry : environment) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    if (secret_variable(name) && !listed(keep, name) && !listed(kept, name)) continue;
    out.push_back(entry);
  }
  return out;
}

std::vector<std::string> scrubbed_environment(const std::vector<std::string>& keep) {
  std::vector<std::string> current;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    current.emplace_back(*entry);
  }
  return scrub_environment(current, keep);
}

}  // namespace ava::proc
