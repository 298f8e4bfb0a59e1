#pragma once
// The application writing into a source database: the input of a CDC job. It seeds each table
// with its initial rows at time zero, then commits `transactions` transactions at
// `rate_per_second`, each of `statements` statements on keys uniform in [0, keys): with chance
// `delete_ratio` a DELETE, otherwise an upsert of a value uniform in [value_min, value_max]. Every
// statement on a key gives the key the next version (a per-key sequence, never reused, so a row's
// version grows with each change). With chance `rollback_ratio` a transaction is rolled back
// instead of committed (it must leave no trace). A commit refused by the database (unavailable,
// write errors) is retried every `retry_interval` with the same statements. When the last
// transaction is in, the database is set read-only: the bounded input is done.
//
// Everything is drawn from its own PRNG stream at construction, so the workload is the same
// whatever the job does; only when each commit lands depends on the database's faults.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/external/database.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

struct DatabaseTableSpec {
    std::string name;
    int64_t initial_rows = 0;  // keys 0 .. initial_rows-1 exist at time zero
};

struct DatabaseWorkloadSpec {
    std::string table;
    int64_t transactions = 1000;
    int64_t statements = 1;
    int64_t keys = 64;
    int64_t rate_per_second = 100;
    Ratio delete_ratio = Ratio{1, 10};
    Ratio rollback_ratio = Ratio{1, 20};
    int64_t value_min = 1;
    int64_t value_max = 100;
    Duration retry_interval = Duration::millis(10);
};

class DatabaseWorkload {
public:
    DatabaseWorkload(Scheduler& scheduler, Database& database, NodeId client,
                     std::vector<DatabaseTableSpec> tables, DatabaseWorkloadSpec spec, Prng prng);

    // Creates the tables, writes the initial rows and schedules the transactions.
    void start();
    bool done() const { return next_ == transactions_.size(); }
    const DatabaseWorkloadSpec& spec() const { return spec_; }
    // The workload table's content once every transaction is in: the initial rows with every
    // committed transaction applied in order (what the application expects; the reference model's
    // input, computed without the database).
    std::map<int64_t, Row> final_rows() const;
    int64_t rolled_back() const { return rolled_back_; }

private:
    struct Statement {
        int64_t key;
        bool remove;
        int64_t value;
        int64_t version;
    };
    struct Transaction {
        Time at;
        bool rollback;
        std::vector<Statement> statements;
    };
    void run_due();
    bool execute(const Transaction& transaction);

    Scheduler& scheduler_;
    Database& database_;
    NodeId client_;
    std::vector<DatabaseTableSpec> tables_;
    DatabaseWorkloadSpec spec_;
    std::vector<std::vector<Row>> initial_;  // per table, its initial rows
    std::vector<Transaction> transactions_;
    size_t next_ = 0;
    int64_t rolled_back_ = 0;
};

}  // namespace eosim::sim::external
