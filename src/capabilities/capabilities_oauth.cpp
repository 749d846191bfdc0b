// The oauth_credentials table of capabilities.sqlite3: the rows behind
// StoredCredentials (stored_credentials.hpp).

#include <fmt/format.h>

#include "ava/base/clock.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/store/sqlite.hpp"

namespace ava::capabilities {

using store::Statement;
using store::Transaction;

Result<CapabilitiesStore::OAuthRow> CapabilitiesStore::oauth_row(const std::string& server) const {
  AVA_TRY(auto query, store::Statement::prepare(db_.get(),
                                                "SELECT data, generation, revision FROM "
                                                "oauth_credentials WHERE server = ?"));
  query.bind(1, server);
  AVA_TRY(bool found, query.step());
  OAuthRow row;
  if (!found) return row;
  row.data = query.text(0);
  row.generation = static_cast<std::uint64_t>(query.integer(1));
  row.revision = static_cast<std::uint64_t>(query.integer(2));
  return row;
}

Result<void> CapabilitiesStore::save_oauth(const std::string& server, const std::string& data,
                                           std::uint64_t generation) {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY(const auto current, oauth_row(server));
  if (current.generation != generation) {
    return fail(ErrorCode::conflict,
                fmt::format("the credentials of MCP server {} were signed out meanwhile", server));
  }
  AVA_TRY(auto upsert, store::Statement::prepare(
                           db_.get(),
                           "INSERT INTO oauth_credentials(server, generation, data, updated_ms, "
                           "revision) VALUES(?,?,?,?,1) ON CONFLICT(server) DO UPDATE SET "
                           "data = excluded.data, updated_ms = excluded.updated_ms, "
                           "revision = revision + 1"));
  upsert.bind(1, server)
      .bind(2, static_cast<std::int64_t>(generation))
      .bind(3, data)
      .bind(4, base::unix_ms_now());
  AVA_TRY_VOID(upsert.run());
  return transaction.commit();
}

Result<void> CapabilitiesStore::erase_oauth(const std::string& server) {
  AVA_TRY(auto transaction, store::Transaction::begin(db_.get()));
  AVA_TRY_VOID(erase_credentials(server));
  return transaction.commit();
}

Result<void> CapabilitiesStore::erase_credentials(const std::string& server) {
  AVA_TRY(auto erase, store::Statement::prepare(
                          db_.get(),
                          "INSERT INTO oauth_credentials(server, generation, data, updated_ms, "
                          "revision) VALUES(?,1,'',?,1) ON CONFLICT(server) DO UPDATE SET "
                          "data = '', generation = generation + 1, revision = revision + 1, "
                          "updated_ms = excluded.updated_ms"));
  erase.bind(1, server).bind(2, base::unix_ms_now());
  return erase.run();
}

}  // namespace ava::capabilities
