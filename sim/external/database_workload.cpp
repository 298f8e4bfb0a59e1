#include "sim/external/database_workload.h"

#include <map>
#include <stdexcept>

namespace eosim::sim::external {

namespace {
constexpr EventKind kWorkloadCommit{"database.workload"};
}

DatabaseWorkload::DatabaseWorkload(Scheduler& scheduler, Database& database, NodeId client,
                                   std::vector<DatabaseTableSpec> tables, DatabaseWorkloadSpec spec,
                                   Prng prng)
    : scheduler_(scheduler),
      database_(database),
      client_(client),
      tables_(std::move(tables)),
      spec_(std::move(spec)) {
    if (spec_.keys <= 0 || spec_.rate_per_second <= 0 || spec_.statements <= 0) {
        throw std::invalid_argument(
            "database workload: keys, rate_per_second and statements must be positive");
    }
    std::map<int64_t, int64_t> versions;  // key -> last version given
    for (const DatabaseTableSpec& table : tables_) {
        std::vector<Row> rows;
        for (int64_t key = 0; key < table.initial_rows; ++key) {
            const int64_t version = table.name == spec_.table ? ++versions[key] : 1;
            rows.push_back(
                Row{key, prng.between(spec_.value_min, spec_.value_max), version, false});
        }
        initial_.push_back(std::move(rows));
    }
    transactions_.reserve(static_cast<size_t>(spec_.transactions));
    for (int64_t i = 0; i < spec_.transactions; ++i) {
        Transaction t;
        t.at = Time{static_cast<int64_t>(static_cast<__int128>(i + 1) * 1'000'000'000 /
                                         spec_.rate_per_second)};
        for (int64_t s = 0; s < spec_.statements; ++s) {
            const auto key = static_cast<int64_t>(prng.below(static_cast<uint64_t>(spec_.keys)));
            const bool remove = prng.chance(spec_.delete_ratio);
            const int64_t value = prng.between(spec_.value_min, spec_.value_max);
            t.statements.push_back(Statement{key, remove, value, ++versions[key]});
        }
        t.rollback = prng.chance(spec_.rollback_ratio);
        transactions_.push_back(std::move(t));
    }
}

std::map<int64_t, Row> DatabaseWorkload::final_rows() const {
    std::map<int64_t, Row> rows;
    for (size_t i = 0; i < tables_.size(); ++i) {
        if (tables_[i].name != spec_.table) continue;
        for (const Row& row : initial_[i]) rows[row.key] = row;
    }
    for (const Transaction& t : transactions_) {
        if (t.rollback) continue;
        for (const Statement& s : t.statements) {
            if (s.remove) {
                rows.erase(s.key);
            } else {
                rows[s.key] = Row{s.key, s.value, s.version, false};
            }
        }
    }
    return rows;
}

void DatabaseWorkload::start() {
    for (size_t i = 0; i < tables_.size(); ++i) {
        database_.create_table(tables_[i].name);
        if (initial_[i].empty()) continue;
        Database::TransactionId id = 0;
        // At time zero, before any fault: the initial load cannot fail.
        if (database_.begin(client_, &id) != DatabaseError::none)
            throw std::logic_error("initial load refused");
        for (const Row& row : initial_[i])
            database_.upsert(client_, id, tables_[i].name, row, false);
        if (database_.commit(client_, id) != DatabaseError::none)
            throw std::logic_error("initial load refused");
    }
    if (!database_.has_table(spec_.table))
        throw std::invalid_argument("database workload: no table '" + spec_.table + "'");
    run_due();
}

bool DatabaseWorkload::execute(const Transaction& transaction) {
    Database::TransactionId id = 0;
    if (database_.begin(client_, &id) != DatabaseError::none) return false;
    for (const Statement& s : transaction.statements) {
        const DatabaseError e =
            s.remove ? database_.remove(client_, id, spec_.table, s.key)
                     : database_.upsert(client_, id, spec_.table,
                                        Row{s.key, s.value, s.version, false}, false);
        if (e != DatabaseError::none) {
            database_.rollback(client_, id);
            return false;
        }
    }
    if (transaction.rollback) {
        database_.rollback(client_, id);
        ++rolled_back_;
        return true;
    }
    return database_.commit(client_, id) == DatabaseError::none;
}

void DatabaseWorkload::run_due() {
    const Time now = scheduler_.now();
    while (next_ < transactions_.size() && transactions_[next_].at <= now) {
        if (!execute(transactions_[next_])) break;  // retried
        ++next_;
    }
    if (done()) {
        database_.set_read_only(true);
        return;
    }
    const Duration wait =
        transactions_[next_].at > now ? transactions_[next_].at - now : spec_.retry_interval;
    scheduler_.schedule(wait, kNoNode, kWorkloadCommit, next_, [this] { run_due(); });
}

}  // namespace eosim::sim::external
