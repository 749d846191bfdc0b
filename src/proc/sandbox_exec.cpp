#include "ava/proc/sandbox_exec.hpp"

#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "ava/proc/environment.hpp"
#include "sys.hpp"

namespace ava::proc {

Error exec_sandboxed(const std::vector<std::string>& argv, const Sandbox& sandbox,
                     const std::vector<std::string>& keep) {
  if (argv.empty()) return Error{ErrorCode::invalid_argument, "no command given"};
  // This process is single-threaded here, so restricting this thread
  // restricts everything the exec starts.
  if (sandbox.mode != SandboxMode::off) {
    if (auto restricted = restrict_this_thread(sandbox); !restricted) {
      return std::move(restricted).error();
    }
  }
  auto env_strings = scrubbed_environment(keep);
  auto argv_strings = argv;
  auto args = sys::c_strings(argv_strings);
  auto envp = sys::c_strings(env_strings);
  ::execvpe(args[0], args.data(), envp.data());
  const int error = errno;
  return base::fail_errno(fmt::format("run {}", argv[0]), error).error();
}

std::vector<std::string> sandbox_exec_arguments(const Sandbox& sandbox,
                                                const std::vector<std::string>& keep,
                                                const std::vector<std::string>& argv) {
  std::vector<std::string> out{"sandbox-exec", "--mode", std::string(to_string(sandbox.mode))};
  for (const auto& root : sandbox.writable_roots) {
    out.emplace_back("--writable");
    out.push_back(root.string());
  }
  if (sandbox.network) out.emplace_back("--network");
  for (const auto& name : keep) {
    out.emplace_back("--keep");
    out.push_back(name);
  }
  out.emplace_back("--");
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace ava::proc
