#include "ava/store/database.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "ava/base/error.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::store {
namespace {

namespace fs = std::filesystem;

constexpr int busy_timeout_ms = 5000;

// An existing file is never opened here: closing any descriptor of the
// database drops every POSIX lock this process holds on it, including those
// of SQLite connections already open, which then read stale snapshots.
Result<void> private_file(const fs::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) == 0) {
    if ((info.st_mode & 0077) != 0 && ::chmod(file.c_str(), 0600) != 0)
      return base::fail_errno("chmod " + file.string(), errno);
    return {};
  }
  if (errno != ENOENT) return base::fail_errno("stat " + file.string(), errno);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST) return base::fail_errno("create " + file.string(), errno);
  if (fd >= 0) ::close(fd);  // new and empty: no connection can hold it yet
  return {};
}

Result<std::int64_t> user_version(sqlite3* db) {
  AVA_TRY(auto query, Statement::prepare(db, "PRAGMA user_version"));
  AVA_TRY(bool has_row, query.step());
  return has_row ? query.integer(0) : 0;
}

}  // namespace

Result<Database> open_database(const fs::path& file, std::span<const char* const> migrations) {
  AVA_TRY_VOID(private_file(file));
  sqlite3* raw = nullptr;
  const int opened =
      sqlite3_open_v2(file.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  Database db(raw);
  if (opened != SQLITE_OK) {
    return fail(ErrorCode::io, fmt::format("cannot open {}: {}", file.string(),
                                           raw != nullptr ? sqlite3_errmsg(raw) : "out of memory"));
  }
  sqlite3_busy_timeout(db.get(), busy_timeout_ms);
  sqlite3_extended_result_codes(db.get(), 1);
  AVA_TRY_VOID(exec(db.get(), "PRAGMA journal_mode = WAL"));
  AVA_TRY_VOID(exec(db.get(), "PRAGMA synchronous = NORMAL"));
  AVA_TRY_VOID(exec(db.get(), "PRAGMA foreign_keys = ON"));

  // A store at the current schema is opened without a write transaction:
  // most opens only read. Otherwise the version is read again under the
  // write lock, since another process may be migrating it right now.
  const auto newest = static_cast<std::int64_t>(migrations.size());
  AVA_TRY(std::int64_t version, user_version(db.get()));
  if (version == newest) return db;
  AVA_TRY(auto transaction, Transaction::begin(db.get()));
  AVA_TRY(version, user_version(db.get()));
  if (version > newest) {
    return fail(ErrorCode::unsupported,
                fmt::format("{} has schema version {}, newer than this Ava understands ({}); "
                            "use a newer Ava",
                            file.string(), version, newest));
  }
  for (auto step = version; step < newest; ++step) {
    AVA_TRY_VOID(exec(db.get(), migrations[static_cast<std::size_t>(step)]));
  }
  AVA_TRY_VOID(transaction.commit());
  return db;
}

}  // namespace ava::store
