// faultfs: an LD_PRELOAD shim that makes the file system fail on demand, for
// the disk-full and I/O error tests (docs/reliability.md).
//
// While the file named by AVA_FAULT_CONTROL exists and holds
//   <ERRNO> <mode> <path-part> [<call>,<call>...]
// (e.g. "ENOSPC partial /tmp/home/" or "EIO whole /tmp/home/ fsync,fdatasync"),
// every write, writev, pwrite, fsync, fdatasync, rename, renameat, link and
// linkat (or only the calls listed) on a path containing <path-part> fails
// with <ERRNO> (ENOSPC, EIO or EDQUOT). Mode "partial" makes
// a write of more than one byte first take half of its bytes and return a
// short count, as a full disk often does; "whole" fails it outright. Without
// the file, or for other paths (sockets, pipes), calls pass through.
//
// Each injected fault appends "<call> <path>\n" to AVA_FAULT_LOG, so a test
// can count the faults per call site. The shim reads the control file on each
// call (a few syscalls): it is for tests, not for speed.

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Fault {
  int error = 0;
  bool partial = false;
  char part[512] = {};
  char calls[256] = {};  // empty: every call
};

// Raw syscalls: the shim must not call the functions it wraps.
long raw_read_file(const char* path, char* buffer, std::size_t size) {
  const int fd = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return -1;
  const long got = ::syscall(SYS_read, fd, buffer, size - 1);
  ::syscall(SYS_close, fd);
  if (got < 0) return -1;
  buffer[got] = '\0';
  return got;
}

bool active_fault(Fault& fault) {
  const char* control = std::getenv("AVA_FAULT_CONTROL");
  if (control == nullptr) return false;
  char text[700];
  if (raw_read_file(control, text, sizeof text) <= 0) return false;
  char name[32] = {};
  char mode[32] = {};
  if (std::sscanf(text, "%31s %31s %511s %255s", name, mode, fault.part, fault.calls) < 3)
    return false;
  if (std::strcmp(name, "ENOSPC") == 0)
    fault.error = ENOSPC;
  else if (std::strcmp(name, "EIO") == 0)
    fault.error = EIO;
  else if (std::strcmp(name, "EDQUOT") == 0)
    fault.error = EDQUOT;
  else
    return false;
  fault.partial = std::strcmp(mode, "partial") == 0;
  return true;
}

bool fd_path(int fd, char* path, std::size_t size) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const long got = ::syscall(SYS_readlinkat, AT_FDCWD, link, path, size - 1);
  if (got <= 0) return false;
  path[got] = '\0';
  return true;
}

void record(const char* call, const char* path) {
  const char* log = std::getenv("AVA_FAULT_LOG");
  if (log == nullptr) return;
  const int fd = static_cast<int>(
      ::syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (fd < 0) return;
  char line[4200];
  const int length = std::snprintf(line, sizeof line, "%s %s\n", call, path);
  if (length > 0) ::syscall(SYS_write, fd, line, static_cast<std::size_t>(length));
  ::syscall(SYS_close, fd);
}

bool listed(const char* call, const char* calls) {
  if (*calls == '\0') return true;
  const std::size_t length = std::strlen(call);
  for (const char* at = calls; (at = std::strstr(at, call)) != nullptr; at += length) {
    const bool starts = at == calls || at[-1] == ',';
    const bool ends = at[length] == '\0' || at[length] == ',';
    if (starts && ends) return true;
  }
  return false;
}

// The fault for a call on `path`, or null: recorded when it applies.
const Fault* fault_for(const char* call, const char* path, Fault& fault) {
  if (path == nullptr || !active_fault(fault) || !listed(call, fault.calls) ||
      std::strstr(path, fault.part) == nullptr)
    return nullptr;
  record(call, path);
  return &fault;
}

const Fault* fault_for_fd(const char* call, int fd, Fault& fault) {
  char path[4096];
  if (!fd_path(fd, path, sizeof path)) return nullptr;
  return fault_for(call, path, fault);
}

// For the calls that fail whole: sets errno and says whether to fail.
bool fails_fd(const char* call, int fd) {
  Fault fault;
  const Fault* injected = fault_for_fd(call, fd, fault);
  if (injected != nullptr) errno = injected->error;
  return injected != nullptr;
}

bool fails_path(const char* call, const char* path) {
  Fault fault;
  const Fault* injected = fault_for(call, path, fault);
  if (injected != nullptr) errno = injected->error;
  return injected != nullptr;
}

template <class Function>
Function next(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* data, size_t size) {
  static auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  Fault fault;
  if (const Fault* injected = fault_for_fd("write", fd, fault)) {
    if (injected->partial && size > 1) return real(fd, data, size / 2);
    errno = injected->error;
    return -1;
  }
  return real(fd, data, size);
}

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
  static auto real = next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  Fault fault;
  if (const Fault* injected = fault_for_fd("pwrite", fd, fault)) {
    if (injected->partial && size > 1) return real(fd, data, size / 2, offset);
    errno = injected->error;
    return -1;
  }
  return real(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off_t offset) {
  return pwrite(fd, data, size, offset);
}

ssize_t writev(int fd, const struct iovec* parts, int count) {
  static auto real = next<ssize_t (*)(int, const struct iovec*, int)>("writev");
  Fault fault;
  if (const Fault* injected = fault_for_fd("writev", fd, fault)) {
    if (injected->partial && count > 0 && parts[0].iov_len > 1)
      return write(fd, parts[0].iov_base, parts[0].iov_len);
    errno = injected->error;
    return -1;
  }
  return real(fd, parts, count);
}

int fsync(int fd) {
  static auto real = next<int (*)(int)>("fsync");
  if (fails_fd("fsync", fd)) return -1;
  return real(fd);
}

int fdatasync(int fd) {
  static auto real = next<int (*)(int)>("fdatasync");
  if (fails_fd("fdatasync", fd)) return -1;
  return real(fd);
}

int rename(const char* from, const char* to) {
  static auto real = next<int (*)(const char*, const char*)>("rename");
  if (fails_path("rename", to)) return -1;
  return real(from, to);
}

int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  static auto real = next<int (*)(int, const char*, int, const char*)>("renameat");
  if (fails_path("renameat", to)) return -1;
  return real(from_dir, from, to_dir, to);
}

int link(const char* from, const char* to) {
  static auto real = next<int (*)(const char*, const char*)>("link");
  if (fails_path("link", to)) return -1;
  return real(from, to);
}

int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  static auto real = next<int (*)(int, const char*, int, const char*, int)>("linkat");
  if (fails_path("linkat", to)) return -1;
  return real(from_dir, from, to_dir, to, flags);
}

}  // extern "C"
