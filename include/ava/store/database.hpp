#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

#include "ava/base/error.hpp"

// Opening a store's SQLite file the one way every store does it: created
// 0600 before SQLite opens it (its WAL and shared-memory files copy the
// mode), WAL, foreign keys, a busy timeout, and the schema brought to the
// newest version in one write transaction (PRAGMA user_version counts the
// migrations applied). A file newer than this Ava is refused.
namespace ava::store {

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Database = std::unique_ptr<sqlite3, Closer>;

// migrations[i] takes the schema from version i to i + 1 and sets
// PRAGMA user_version = i + 1 itself.
Result<Database> open_database(const std::filesystem::path& file,
                               std::span<const char* const> migrations);

}  // namespace ava::store
