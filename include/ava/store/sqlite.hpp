#pragma once

// Thin RAII over the SQLite C API for every store (capabilities.sqlite3
// today; automations and analytics next): prepared statements with bound
// values (never SQL spliced from input), exec and BEGIN IMMEDIATE
// transactions.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ava/base/error.hpp"

namespace ava::store {

inline Error sqlite_error(sqlite3* db, std::string_view what) {
  const int code = sqlite3_extended_errcode(db);
  const ErrorCode kind =
      (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED      ? ErrorCode::unavailable
      : (code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB ? ErrorCode::corrupt
                                                                          : ErrorCode::io;
  return Error{kind, fmt::format("sqlite: {}: {}", what, sqlite3_errmsg(db))};
}

// One prepared statement; values are always bound, never spliced into SQL.
class Statement {
 public:
  static Result<Statement> prepare(sqlite3* db, const char* sql) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK)
      return std::unexpected(sqlite_error(db, "prepare"));
    return Statement(db, raw);
  }
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
    other.stmt_ = nullptr;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  Statement& bind(int index, const std::string& text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int index, std::int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
  }
  Statement& bind(int index, double value) {
    sqlite3_bind_double(stmt_, index, value);
    return *this;
  }
  // true while there is a row to read.
  Result<bool> step() {
    const int code = sqlite3_step(stmt_);
    if (code == SQLITE_ROW) return true;
    if (code == SQLITE_DONE) return false;
    return std::unexpected(sqlite_error(db_, "step"));
  }
  // Steps once, then resets the statement (bindings kept) for the next run.
  Result<void> run() {
    auto stepped = step();
    sqlite3_reset(stmt_);
    AVA_TRY(bool row, std::move(stepped));
    (void)row;
    return {};
  }
  std::string text(int column) const {
    const auto* data = sqlite3_column_text(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(data), size);
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }

 private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

inline Result<void> exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Error error = sqlite_error(db, sql);
    sqlite3_free(message);
    return std::unexpected(std::move(error));
  }
  return {};
}

// BEGIN IMMEDIATE takes the write lock up front, so two writers wait on the
// busy timeout instead of failing halfway; rolled back unless committed.
class Transaction {
 public:
  static Result<Transaction> begin(sqlite3* db) {
    AVA_TRY_VOID(exec(db, "BEGIN IMMEDIATE"));
    return Transaction(db);
  }
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (db_ != nullptr) (void)exec(db_, "ROLLBACK");
  }
  Result<void> commit() {
    AVA_TRY_VOID(exec(db_, "COMMIT"));
    db_ = nullptr;
    return {};
  }

 private:
  explicit Transaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace ava::store
