// Installing this build on a machine and starting its backend there.
#include "ava/remote/bootstrap.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <memory>

#include "ava/base/unique_fd.hpp"
#include "ava/base/version.hpp"
#include "ava/machine/backend.hpp"

namespace ava::remote {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

fs::path this_binary() {
  if (const char* env = std::getenv("AVA_BIN"); env != nullptr && *env != '\0') return env;
  std::array<char, 4096> buffer{};
  ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return "ava";
  return std::string(buffer.data(), static_cast<std::size_t>(n));
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string safe_version(std::string_view version) {
  std::string out;
  for (char c : version) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '.' || c == '-' || c == '_';
    out += ok ? c : '_';
  }
  return out.substr(0, 40);
}

asio::awaitable<Result<std::string>> run_checked(MachineShell& session, std::string command,
                                                 std::string_view what) {
  AVA_CO_TRY(auto done, co_await session.exec(std::move(command)));
  if (done.exit_status != 0) {
    std::string err = done.err.substr(0, 2000);
    while (!err.empty() && err.back() == '\n') err.pop_back();
    co_return fail(ErrorCode::io, std::string(what) + " failed on the machine (exit " +
                                      std::to_string(done.exit_status) + "): " + err);
  }
  co_return std::move(done.out);
}

asio::awaitable<Result<void>> upload_verified(MachineShell& session, const fs::path& local,
                                              const std::string& sha256, const std::string& dir,
                                              const std::string& name) {
  std::string temporary = dir + "/.upload-" + name + "-" + random_hex(8);
  AVA_CO_TRY_VOID(co_await session.upload(local, temporary, 0700));
  AVA_CO_TRY(auto sum, co_await run_checked(session, "sha256sum " + shell_quote(temporary),
                                            "checking the upload"));
  if (sum.substr(0, sum.find(' ')) != sha256) {
    (void)co_await session.exec("rm -f " + shell_quote(temporary));
    co_return fail(ErrorCode::corrupt, "the uploaded " + name +
                                           " does not match this build's"
                                           " SHA-256; nothing was installed");
  }
  AVA_CO_TRY(auto renamed,
             co_await run_checked(session,
                                  "chmod 755 " + shell_quote(temporary) + " && mv -f " +
                                      shell_quote(temporary) + " " + shell_quote(dir + "/" + name),
                                  "installing " + name));
  (void)renamed;
  co_return Result<void>{};
}

}  // namespace

Result<std::string> sha256_file(const fs::path& file) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return base::fail_errno("open " + file.string(), errno);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::fail_errno("read " + file.string(), errno);
    if (n == 0) break;
    EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < length; ++i) {
    hex += digits[digest[i] >> 4];
    hex += digits[digest[i] & 15];
  }
  return hex;
}

Result<LocalBuild> local_build() {
  LocalBuild build;
  build.version = std::string(base::version());
  utsname name{};
  if (::uname(&name) != 0) return base::fail_errno("uname", errno);
  build.os = name.sysname;
  build.arch = name.machine;
  build.ava = this_binary();
  build.backend = machine::backend_binary();
  AVA_TRY(build.ava_sha256, sha256_file(build.ava));
  AVA_TRY(build.backend_sha256, sha256_file(build.backend));
  build.id = safe_version(build.version) + "-" + build.ava_sha256.substr(0, 12);
  return build;
}

asio::awaitable<Result<Installed>> ensure_installed(MachineShell& session,
                                                    const RemoteSystem& system,
                                                    const LocalBuild& build) {
  if (system.home.empty() || system.home.front() != '/') {
    co_return fail(ErrorCode::unavailable, "the machine did not say where its home is");
  }
  Installed installed;
  installed.dir = system.home + "/" + std::string(remote_install_dir) + "/versions/" + build.id;
  installed.ava = installed.dir + "/ava";
  AVA_CO_TRY(auto present,
             co_await session.exec("test -x " + shell_quote(installed.ava) + " && test -x " +
                                   shell_quote(installed.dir + "/ava-backend")));
  if (present.exit_status == 0) co_return installed;
  if (system.os != build.os || system.arch != build.arch) {
    co_return fail(ErrorCode::unsupported, "the machine runs " + system.os + " " + system.arch +
                                               " and this Ava is a " + build.os + " " + build.arch +
                                               " build, so it cannot be installed there:"
                                               " install Ava on the machine (as ~/" +
                                               std::string(remote_install_dir) +
                                               "/current/ava or on PATH) and connect again");
  }
  AVA_CO_TRY(auto made, co_await run_checked(session, "mkdir -p " + shell_quote(installed.dir),
                                             "creating " + installed.dir));
  (void)made;
  AVA_CO_TRY_VOID(co_await upload_verified(session, build.backend, build.backend_sha256,
                                           installed.dir, "ava-backend"));
  AVA_CO_TRY_VOID(
      co_await upload_verified(session, build.ava, build.ava_sha256, installed.dir, "ava"));
  installed.uploaded = true;
  co_return installed;
}

asio::awaitable<Result<void>> activate(MachineShell& session, const RemoteSystem& system,
                                       const Installed& installed) {
  std::string root = system.home + "/" + std::string(remote_install_dir);
  std::string link = installed.dir.substr(root.size() + 1);  // versions/<id>
  std::string next = "current.new-" + random_hex(4);
  AVA_CO_TRY(auto swapped,
             co_await run_checked(session,
                                  "cd " + shell_quote(root) + " && ln -sfn " + shell_quote(link) +
                                      " " + next + " && mv -Tf " + next + " current",
                                  "switching to the new version"));
  (void)swapped;
  co_return Result<void>{};
}

asio::awaitable<Result<machine::BackendEndpoint>> start_remote_backend(
    MachineShell& session, const std::string& ava_path) {
  std::string script =
      shell_quote(ava_path) + " backend start >&2 && cat \"${AVA_HOME:-$HOME/.ava}/backend.json\"";
  AVA_CO_TRY(auto out,
             co_await run_checked(session, "sh -c " + shell_quote(script), "starting the backend"));
  co_return machine::parse_backend_file(out, "the machine's backend.json");
}

}  // namespace ava::remote
