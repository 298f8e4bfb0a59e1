#pragma once
// A relational database with a binlog (MySQL-like), as far as exactly-once pipelines need it: the
// source a CDC connector reads (snapshot reads plus the binlog) and the target an upsert sink
// writes (INSERT ... ON DUPLICATE KEY UPDATE, optionally guarded by a version column).
//
// Modelled:
// - tables of rows with an int64 primary key and int64 columns `value` and `version`, plus a
//   `deleted` flag (a soft-delete tombstone, for writers that must remember a deleted key's
//   version);
// - transactions: begin, statements, commit or rollback. A transaction's statements take effect at
//   commit, in statement order, atomically (it is serialised at its commit; no isolation levels, no
//   locks, no reads of its own uncommitted writes). A rolled-back transaction leaves nothing: no
//   rows, no binlog, no GTID;
// - statements: upsert (INSERT ... ON DUPLICATE KEY UPDATE), optionally guarded
//   (`... UPDATE value = IF(version < new_version, ...)`: a write whose version is not newer than
//   the stored row's changes nothing), delete by key; a statement that changes nothing writes no
//   binlog event (row-based binlog: only changed rows are logged);
// - reads by key, full scans, scans of a primary-key range with a page limit (what a CDC chunk
//   read issues), every read seeing the committed state at the moment of the call;
// - a row-based binlog of committed changes (insert / update / delete with before and after
//   images), each committed transaction that changed rows getting the next GTID-like transaction
//   number; positions are (file, offset), the offset counting bytes in the file (an event takes
//   kEventBytes), files rotating once they reach `binlog_file_bytes`; retention by count
//   (`retain_files`: at most that many files, the oldest purged at a rotation) and by age
//   (`binlog_expire`, MySQL 8's binlog_expire_logs_seconds: at a rotation, as MySQL purges when it
//   flushes the binary log, every closed file whose last event is older than that is purged), and
//   an explicit purge of every file before a given one. Reading from a position in a purged file
//   fails with `binlog_purged`;
// - a read-only switch (SET GLOBAL read_only): the workload sets it when its bounded input is
//   done, so a CDC reader knows where the input ends.
//
// Calls are synchronous and made on behalf of a node: a call from a node that is down, or that a
// partition separates from the database's node (either direction), or made while the database is
// unavailable, fails with `unavailable` and changes nothing. Write errors (a switch, until a time)
// fail commits with `write_error`; reads still work.
//
// Calls that race (call_races.h): a commit may apply and answer `timeout` (the acknowledgement
// lost), or be lost (`timeout`, the transaction still open); every call is noted in the call log
// when one is set (`races().set_log`).
//
// Not modelled: latency, partial commits, a commit landing after later calls (a transaction's calls
// share one connection),
// isolation anomalies between concurrent transactions (there are none: statements apply at commit),
// secondary indexes, schemas beyond the fixed columns, the database's own node crashing (the data
// survives, as every outside system's does; calls fail while its node is down).
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/external/call_races.h"
#include "sim/network.h"
#include "sim/outside_fault_target.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

enum class DatabaseError : uint8_t {
    none,
    unavailable,  // the database is down, unreachable or in an unavailable period, or the caller is
                  // down
    write_error,  // a write-error period: the commit failed and changed nothing
    no_such_table,
    read_only,       // a write while the database is read-only
    binlog_purged,   // a binlog read from a position whose file was purged
    no_transaction,  // a statement, commit or rollback for a transaction that is not open
    timeout,         // a commit without answer (calls that race, call_races.h): it may have applied
};
const char* to_string(DatabaseError error);

struct Row {
    int64_t key = 0;
    int64_t value = 0;
    int64_t version = 0;
    bool deleted = false;  // a tombstone: the row is logically absent but remembers its version
    auto operator<=>(const Row&) const = default;
};

struct BinlogPosition {
    int32_t file = 1;    // mysql-bin.000001 is file 1
    int64_t offset = 0;  // bytes into the file
    auto operator<=>(const BinlogPosition&) const = default;
    std::string describe() const;  // "mysql-bin.000003:240"
};

enum class ChangeKind : uint8_t { insert, update, remove };
const char* to_string(ChangeKind kind);

struct BinlogEvent {
    BinlogPosition position;  // where the event starts
    BinlogPosition next;      // where the next event starts (what a reader saves after it)
    int64_t sequence = 0;     // 0, 1, 2, ... over the database's life (never reused; for oracles)
    int64_t gtid = 0;         // the transaction's number (server_uuid:gtid), 1, 2, ...
    std::string table;
    ChangeKind kind = ChangeKind::insert;
    std::optional<Row> before;  // update, remove
    std::optional<Row> after;   // insert, update
    int64_t key() const { return after ? after->key : before->key; }
};

struct DatabaseOptions {
    int64_t binlog_file_bytes = 64 * 1024;  // a file rotates once it holds this many bytes
    int32_t retain_files = 0;               // keep at most this many binlog files (0: keep all)
    // binlog_expire_logs_seconds: a closed file whose last event is older than this is purged at
    // the next rotation (zero: never by age).
    Duration binlog_expire = Duration::zero();
};

// What a statement did when its transaction committed.
enum class StatementResult : uint8_t { inserted, updated, unchanged, deleted, absent };

class Database final : public OutsideFaultTarget {
public:
    static constexpr int64_t kEventBytes = 40;
    using TransactionId = int64_t;

    Database(Scheduler& scheduler, Network& network, NodeId node, DatabaseOptions options = {});

    NodeId node() const { return node_; }
    DatabaseError create_table(const std::string& table);
    bool has_table(const std::string& table) const { return tables_.count(table) != 0; }

    // ---- transactions ----
    DatabaseError begin(NodeId caller, TransactionId* id);
    // INSERT ... ON DUPLICATE KEY UPDATE value, version, deleted; with `guarded`, only when the
    // stored row's version < row.version (an older or equal write changes nothing).
    DatabaseError upsert(NodeId caller, TransactionId id, const std::string& table, const Row& row,
                         bool guarded);
    DatabaseError remove(NodeId caller, TransactionId id, const std::string& table, int64_t key);
    // Applies every statement in order, writes one binlog transaction for the rows that changed.
    DatabaseError commit(NodeId caller, TransactionId id,
                         std::vector<StatementResult>* results = nullptr);
    DatabaseError rollback(NodeId caller, TransactionId id);

    // ---- reads (committed state) ----
    DatabaseError read(NodeId caller, const std::string& table, int64_t key,
                       std::optional<Row>* row) const;
    DatabaseError scan(NodeId caller, const std::string& table, std::vector<Row>* rows) const;
    // Rows with key in [from, to) (std::nullopt: unbounded), after_key exclusive (for paging), at
    // most `limit`.
    DatabaseError scan_range(NodeId caller, const std::string& table, std::optional<int64_t> from,
                             std::optional<int64_t> to, std::optional<int64_t> after_key,
                             size_t limit, std::vector<Row>* rows) const;

    // ---- binlog ----
    // SHOW MASTER STATUS: where the next event will be written.
    DatabaseError current_position(NodeId caller, BinlogPosition* position) const;
    // Up to `max_events` events from `from` on; `binlog_purged` when `from`'s file was purged.
    DatabaseError read_binlog(NodeId caller, BinlogPosition from, size_t max_events,
                              std::vector<BinlogEvent>* out) const;
    // PURGE BINARY LOGS TO 'mysql-bin.<file>': every file before `file` (never the current one).
    void purge_binlogs_before(int32_t file);
    BinlogPosition end_position() const { return next_position_; }
    int32_t first_retained_file() const { return first_retained_file_; }

    // ---- the bounded input ----
    void set_read_only(bool read_only) { read_only_ = read_only; }
    bool read_only() const { return read_only_; }

    // ---- faults ----
    // (the generic system_unavailable and system_write_errors faults, as "mysql-source" or
    // "mysql-target" in a scenario)
    void set_unavailable_until(Time until) override { unavailable_until_ = until; }
    void set_write_errors_until(Time until) override { write_errors_until_ = until; }
    // Calls that race (call_races.h): a commit may apply and lose its answer, or be lost
    // (`timeout`).
    bool has_call_races() const override { return true; }
    void set_call_races(Ratio ratio, Time until, Prng prng) override {
        races_.set_races(ratio, until, prng);
    }
    CallRaces& races() { return races_; }

    // ---- narrow views for oracles, the workload and tests (no caller, no faults) ----
    const std::map<int64_t, Row>& table_contents(const std::string& table) const;
    // A digest of what it holds at the end (sim/external/content_digest.cpp): equal contents, equal
    // digests; folded into a run's state hash beside its trace hash.
    uint64_t content_digest() const;
    size_t open_transaction_count() const {
        return open_.size();
    }  // begun, neither committed nor rolled back
    // Every event ever committed, purged or not (the harness's record, not the database's).
    const std::vector<BinlogEvent>& history() const { return history_; }
    struct Stats {
        uint64_t commits = 0;
        uint64_t statements_committed = 0;
        uint64_t rollbacks = 0;
        uint64_t failed_calls = 0;
        uint64_t unchanged_writes =
            0;  // statements that changed nothing (a guarded older write, a same-row rewrite)
    };
    const Stats& stats() const { return stats_; }

private:
    struct Statement {
        std::string table;
        bool remove = false;
        Row row;
        bool guarded = false;
    };
    DatabaseError reachable(NodeId caller) const;
    DatabaseError fail(DatabaseError error) const;
    // Notes the call in the call log (`answer` for a success); returns `error`.
    DatabaseError noted(NodeId caller, const std::function<std::string()>& call,
                        DatabaseError error, const std::function<std::string()>& answer = {}) const;
    DatabaseError statement(NodeId caller, TransactionId id, const std::string& table,
                            Statement statement);
    DatabaseError apply_commit(NodeId caller, TransactionId id,
                               std::vector<StatementResult>* results);
    DatabaseError read_row(NodeId caller, const std::string& table, int64_t key,
                           std::optional<Row>* row) const;
    StatementResult apply(const Statement& statement, int64_t gtid, bool* logged);
    void append_event(BinlogEvent event);
    void rotate_if_full();
    // Purges the closed files whose last event is older than options_.binlog_expire.
    void purge_expired();

    Scheduler& scheduler_;
    Network& network_;
    NodeId node_;
    DatabaseOptions options_;
    std::map<std::string, std::map<int64_t, Row>> tables_;
    std::map<TransactionId, std::vector<Statement>> open_;
    TransactionId next_transaction_ = 1;
    int64_t next_gtid_ = 1;
    std::vector<BinlogEvent> history_;
    std::vector<Time> file_closed_at_;  // by file - 1: when each closed file took its last event
    size_t first_retained_event_ =
        0;  // index into history_ of the first event of the first retained file
    int32_t first_retained_file_ = 1;
    BinlogPosition next_position_;
    bool read_only_ = false;
    Time unavailable_until_ = Time::zero();
    Time write_errors_until_ = Time::zero();
    mutable Stats stats_;
    CallRaces races_;
};

}  // namespace eosim::sim::external
