#include "sim/external/database.h"

#include <algorithm>
#include <cstdio>

#include "sim/invariant.h"

namespace eosim::sim::external {

const char* to_string(DatabaseError error) {
    switch (error) {
        case DatabaseError::none: return "none";
        case DatabaseError::unavailable: return "unavailable";
        case DatabaseError::write_error: return "write_error";
        case DatabaseError::no_such_table: return "no_such_table";
        case DatabaseError::read_only: return "read_only";
        case DatabaseError::binlog_purged: return "binlog_purged";
        case DatabaseError::no_transaction: return "no_transaction";
        case DatabaseError::timeout: return "timeout";
    }
    return "unknown";
}

const char* to_string(ChangeKind kind) {
    switch (kind) {
        case ChangeKind::insert: return "insert";
        case ChangeKind::update: return "update";
        case ChangeKind::remove: return "delete";
    }
    return "unknown";
}

std::string BinlogPosition::describe() const {
    char text[64];
    std::snprintf(text, sizeof text, "mysql-bin.%06d:%lld", file, static_cast<long long>(offset));
    return text;
}

Database::Database(Scheduler& scheduler, Network& network, NodeId node, DatabaseOptions options)
    : scheduler_(scheduler), network_(network), node_(node), options_(options), races_(scheduler) {
    EOSIM_INVARIANT(node < scheduler.nodes().size(), "the database runs on a known node");
    EOSIM_INVARIANT(options_.binlog_file_bytes >= kEventBytes,
                    "a binlog file holds at least one event");
}

DatabaseError Database::create_table(const std::string& table) {
    tables_[table];
    return DatabaseError::none;
}

DatabaseError Database::reachable(NodeId caller) const {
    const NodeTable& nodes = scheduler_.nodes();
    if (caller >= nodes.size() || !nodes.is_up(caller) || !nodes.is_up(node_))
        return DatabaseError::unavailable;
    if (!network_.call_reaches(caller, node_)) return DatabaseError::unavailable;
    if (scheduler_.now() < unavailable_until_) return DatabaseError::unavailable;
    return DatabaseError::none;
}

DatabaseError Database::fail(DatabaseError error) const {
    ++stats_.failed_calls;
    return error;
}

namespace {

std::string row_text(const Row& row) {
    return "(key " + std::to_string(row.key) + ", value " + std::to_string(row.value) +
           ", version " + std::to_string(row.version) + (row.deleted ? ", deleted" : "") + ")";
}

}  // namespace

DatabaseError Database::noted(NodeId caller, const std::function<std::string()>& call,
                              DatabaseError error,
                              const std::function<std::string()>& answer) const {
    races_.note(caller, call, [&] {
        if (error == DatabaseError::timeout)
            return std::string("timeout (no answer: it may have applied)");
        if (error != DatabaseError::none) return std::string(to_string(error));
        return answer ? answer() : std::string("ok");
    });
    return error;
}

// ---- transactions -------------------------------------------------------------------------------

DatabaseError Database::begin(NodeId caller, TransactionId* id) {
    DatabaseError e = reachable(caller);
    if (e == DatabaseError::none) {
        *id = next_transaction_++;
        open_[*id];
    } else {
        fail(e);
    }
    return noted(
        caller, [] { return std::string("BEGIN"); }, e,
        [&] { return "transaction " + std::to_string(*id); });
}

DatabaseError Database::upsert(NodeId caller, TransactionId id, const std::string& table,
                               const Row& row, bool guarded) {
    return noted(
        caller,
        [&] {
            return "UPSERT INTO " + table + " " + row_text(row) +
                   (guarded ? " IF NEWER VERSION" : "") + " in transaction " + std::to_string(id);
        },
        statement(caller, id, table, Statement{table, false, row, guarded}));
}

DatabaseError Database::statement(NodeId caller, TransactionId id, const std::string& table,
                                  Statement statement) {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    auto it = open_.find(id);
    if (it == open_.end()) return fail(DatabaseError::no_transaction);
    if (!has_table(table)) return fail(DatabaseError::no_such_table);
    it->second.push_back(std::move(statement));
    return DatabaseError::none;
}

DatabaseError Database::remove(NodeId caller, TransactionId id, const std::string& table,
                               int64_t key) {
    return noted(
        caller,
        [&] {
            return "DELETE FROM " + table + " key " + std::to_string(key) + " in transaction " +
                   std::to_string(id);
        },
        statement(caller, id, table, Statement{table, true, Row{key, 0, 0, false}, false}));
}

DatabaseError Database::commit(NodeId caller, TransactionId id,
                               std::vector<StatementResult>* results) {
    const size_t before = results != nullptr ? results->size() : 0;
    // Calls that race: a commit may apply and lose its answer (a late commit counts as one: a
    // transaction's calls go over one connection, in order), or be lost (the transaction stays
    // open until the client rolls it back or disconnects).
    const CallDelivery delivery = reachable(caller) == DatabaseError::none && open_.contains(id)
                                      ? races_.next_write().delivery
                                      : CallDelivery::now;
    DatabaseError e = delivery == CallDelivery::request_lost ? fail(DatabaseError::timeout)
                                                             : apply_commit(caller, id, results);
    if (e == DatabaseError::none && delivery != CallDelivery::now) {
        e = fail(DatabaseError::timeout);
        if (results != nullptr) results->resize(before);
    }
    return noted(
        caller, [&] { return "COMMIT transaction " + std::to_string(id); }, e);
}

DatabaseError Database::apply_commit(NodeId caller, TransactionId id,
                                     std::vector<StatementResult>* results) {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    auto it = open_.find(id);
    if (it == open_.end()) return fail(DatabaseError::no_transaction);
    std::vector<Statement> statements = std::move(it->second);
    open_.erase(
        it);  // a failed commit ends the transaction too (the client sees an error and rolls back)
    if (scheduler_.now() < write_errors_until_) return fail(DatabaseError::write_error);
    if (read_only_ && !statements.empty()) return fail(DatabaseError::read_only);
    const int64_t gtid = next_gtid_;
    bool logged_any = false;
    for (const Statement& statement : statements) {
        bool logged = false;
        const StatementResult result = apply(statement, gtid, &logged);
        logged_any = logged_any || logged;
        if (results != nullptr) results->push_back(result);
    }
    if (logged_any) ++next_gtid_;
    ++stats_.commits;
    stats_.statements_committed += statements.size();
    return DatabaseError::none;
}

DatabaseError Database::rollback(NodeId caller, TransactionId id) {
    DatabaseError e = DatabaseError::none;
    if (auto it = open_.find(id); it == open_.end()) {
        e = fail(DatabaseError::no_transaction);
    } else {
        open_.erase(it);  // even an unreachable caller's transaction is gone: the server rolls back
                          // on disconnect
        ++stats_.rollbacks;
        if (e = reachable(caller); e != DatabaseError::none) fail(e);
    }
    return noted(
        caller, [&] { return "ROLLBACK transaction " + std::to_string(id); }, e);
}

StatementResult Database::apply(const Statement& statement, int64_t gtid, bool* logged) {
    std::map<int64_t, Row>& rows = tables_.at(statement.table);
    auto it = rows.find(statement.row.key);
    BinlogEvent event;
    event.gtid = gtid;
    event.table = statement.table;
    if (statement.remove) {
        if (it == rows.end()) return StatementResult::absent;
        event.kind = ChangeKind::remove;
        event.before = it->second;
        rows.erase(it);
        append_event(std::move(event));
        *logged = true;
        return StatementResult::deleted;
    }
    if (it == rows.end()) {
        rows.emplace(statement.row.key, statement.row);
        event.kind = ChangeKind::insert;
        event.after = statement.row;
        append_event(std::move(event));
        *logged = true;
        return StatementResult::inserted;
    }
    if ((statement.guarded && it->second.version >= statement.row.version) ||
        it->second == statement.row) {
        ++stats_.unchanged_writes;
        return StatementResult::unchanged;
    }
    event.kind = ChangeKind::update;
    event.before = it->second;
    event.after = statement.row;
    it->second = statement.row;
    append_event(std::move(event));
    *logged = true;
    return StatementResult::updated;
}

// ---- binlog
// ---------------------------------------------------------------------------------------

void Database::append_event(BinlogEvent event) {
    event.position = next_position_;
    event.sequence = static_cast<int64_t>(history_.size());
    next_position_.offset += kEventBytes;
    rotate_if_full();
    event.next = next_position_;
    history_.push_back(std::move(event));
}

void Database::rotate_if_full() {
    if (next_position_.offset < options_.binlog_file_bytes) return;
    file_closed_at_.push_back(scheduler_.now());
    next_position_ = BinlogPosition{next_position_.file + 1, 0};
    if (options_.retain_files > 0 &&
        next_position_.file - first_retained_file_ + 1 > options_.retain_files) {
        purge_binlogs_before(next_position_.file - options_.retain_files + 1);
    }
    purge_expired();
}

void Database::purge_expired() {
    if (options_.binlog_expire == Duration::zero()) return;
    int32_t file = first_retained_file_;
    while (file < next_position_.file &&
           file_closed_at_[static_cast<size_t>(file - 1)] + options_.binlog_expire <=
               scheduler_.now()) {
        ++file;
    }
    purge_binlogs_before(file);
}

void Database::purge_binlogs_before(int32_t file) {
    file = std::min(file, next_position_.file);
    if (file <= first_retained_file_) return;
    first_retained_file_ = file;
    while (first_retained_event_ < history_.size() &&
           history_[first_retained_event_].position.file < file) {
        ++first_retained_event_;
    }
}

DatabaseError Database::current_position(NodeId caller, BinlogPosition* position) const {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    *position = next_position_;
    return DatabaseError::none;
}

DatabaseError Database::read_binlog(NodeId caller, BinlogPosition from, size_t max_events,
                                    std::vector<BinlogEvent>* out) const {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    if (from.file < first_retained_file_) return fail(DatabaseError::binlog_purged);
    auto first = std::lower_bound(
        history_.begin() + static_cast<std::ptrdiff_t>(first_retained_event_), history_.end(), from,
        [](const BinlogEvent& e, const BinlogPosition& p) { return e.position < p; });
    for (auto it = first; it != history_.end() && out->size() < max_events; ++it)
        out->push_back(*it);
    return DatabaseError::none;
}

// ---- reads
// ----------------------------------------------------------------------------------------

DatabaseError Database::read(NodeId caller, const std::string& table, int64_t key,
                             std::optional<Row>* row) const {
    return noted(
        caller, [&] { return "SELECT FROM " + table + " key " + std::to_string(key); },
        read_row(caller, table, key, row),
        [&] { return *row ? row_text(**row) : std::string("no row"); });
}

DatabaseError Database::read_row(NodeId caller, const std::string& table, int64_t key,
                                 std::optional<Row>* row) const {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    auto t = tables_.find(table);
    if (t == tables_.end()) return fail(DatabaseError::no_such_table);
    auto it = t->second.find(key);
    *row = it == t->second.end() ? std::nullopt : std::optional<Row>(it->second);
    return DatabaseError::none;
}

DatabaseError Database::scan(NodeId caller, const std::string& table,
                             std::vector<Row>* rows) const {
    const size_t before = rows->size();
    return noted(
        caller, [&] { return "SELECT * FROM " + table; },
        scan_range(caller, table, std::nullopt, std::nullopt, std::nullopt, SIZE_MAX, rows),
        [&] { return std::to_string(rows->size() - before) + " row(s)"; });
}

DatabaseError Database::scan_range(NodeId caller, const std::string& table,
                                   std::optional<int64_t> from, std::optional<int64_t> to,
                                   std::optional<int64_t> after_key, size_t limit,
                                   std::vector<Row>* rows) const {
    if (DatabaseError e = reachable(caller); e != DatabaseError::none) return fail(e);
    auto t = tables_.find(table);
    if (t == tables_.end()) return fail(DatabaseError::no_such_table);
    const std::map<int64_t, Row>& contents = t->second;
    auto it = contents.begin();
    if (after_key && (!from || *after_key >= *from)) {
        it = contents.upper_bound(*after_key);
    } else if (from) {
        it = contents.lower_bound(*from);
    }
    for (; it != contents.end() && rows->size() < limit; ++it) {
        if (to && it->first >= *to) break;
        rows->push_back(it->second);
    }
    return DatabaseError::none;
}

const std::map<int64_t, Row>& Database::table_contents(const std::string& table) const {
    return tables_.at(table);
}

}  // namespace eosim::sim::external
