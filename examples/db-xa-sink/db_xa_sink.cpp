#include "db_xa_sink.h"

#include <algorithm>
#include <sstream>

#include "engine/connectors/sink_points.h"

namespace db_xa_example {

namespace {

using eosim::engine::Record;
using eosim::sim::external::Database;
using eosim::sim::external::DatabaseError;
using eosim::sim::external::Row;

int64_t event_id(const Record& r) { return (r.key << 32) | r.value; }
Record from_event_id(int64_t id) { return Record{id >> 32, id & 0xffffffff}; }

// A staged row's key: unique per attempt, subtask and row, so that a zombie of an earlier attempt
// staging the same records never overwrites this attempt's prepared rows.
int64_t staged_key(int64_t attempt, int32_t subtask, int64_t sequence) {
    return ((attempt & 0xfffff) << 40) | (static_cast<int64_t>(subtask & 0xff) << 32) |
           (sequence & 0xffffffff);
}
int32_t staged_subtask(int64_t key) { return static_cast<int32_t>((key >> 32) & 0xff); }

class DbXaSink final : public eosim::engine::Sink {
public:
    DbXaSink(const DbXaOptions& options, eosim::engine::SinkContext& context, Database& db,
             const eosim::engine::RuntimeConfig& runtime)
        : options_(options),
          staged_(options.table + "_staged"),
          context_(context),
          db_(db),
          runtime_(runtime) {}

    // Every state given: its own, and on a scale-in the removed subtasks' (their prepared rows are
    // committed here, not lost). This subtask answers for the staged rows of its own index and of
    // every subtask whose state it was given.
    bool open(int64_t restored_checkpoint_id,
              const std::vector<eosim::engine::RestoredSinkState>& restored) override {
        owned_ = {context_.subtask()};
        for (const auto& from : restored) {
            if (std::find(owned_.begin(), owned_.end(), from.subtask) == owned_.end())
                owned_.push_back(from.subtask);
            std::istringstream in(from.state);
            for (Prepared p; in >> p.subtask >> p.checkpoint_id;) prepared_.push_back(p);
        }
        // The restored checkpoint completed: what it prepared is committed now (the slip: rolled
        // back).
        if (options_.slip == DbXaSlip::roll_back_restored) prepared_.clear();
        if (!commit_up_to(restored_checkpoint_id) || !roll_back_after(restored_checkpoint_id)) {
            context_.fail("cannot recover the prepared transactions of checkpoint " +
                          std::to_string(restored_checkpoint_id));
            return false;
        }
        eosim::engine::announce_point(context_, eosim::engine::sink_points::kRecovered,
                                      restored_checkpoint_id);
        return true;
    }

    void write(const eosim::engine::RecordBatch& records) override {
        buffer_.insert(buffer_.end(), records.begin(), records.end());
    }

    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        Database::TransactionId txn = 0;
        DatabaseError e = db_.begin(context_.node(), &txn);
        for (size_t i = 0; e == DatabaseError::none && i < buffer_.size(); ++i) {
            const Record& r = buffer_[i];
            const int64_t key = staged_key(context_.attempt(), context_.subtask(), next_staged_++);
            e = db_.upsert(context_.node(), txn, staged_, Row{key, event_id(r), checkpoint_id},
                           false);
        }
        if (e == DatabaseError::none) e = db_.commit(context_.node(), txn);
        if (e != DatabaseError::none) {
            db_.rollback(context_.node(), txn);
            *error = std::string("prepare failed: ") + eosim::sim::external::to_string(e);
            return false;
        }
        buffer_.clear();
        prepared_.push_back(Prepared{context_.subtask(), checkpoint_id});
        std::ostringstream out;
        for (const Prepared& p : prepared_) out << p.subtask << " " << p.checkpoint_id << " ";
        *state = out.str();
        eosim::engine::announce_point(context_, eosim::engine::sink_points::kPrecommitted,
                                      checkpoint_id);
        return true;
    }

    void checkpoint_complete(int64_t checkpoint_id) override {
        commit_target_ = std::max(commit_target_, checkpoint_id);
        if (!commit_up_to(commit_target_)) schedule_retry();
    }

    bool settled() const override { return prepared_.empty(); }

private:
    // A checkpoint's rows a subtask staged (after a scale-in, not only this one).
    struct Prepared {
        int32_t subtask = 0;
        int64_t checkpoint_id = 0;
    };

    // The staged rows (subtask, checkpoint) satisfies `pick` for.
    bool staged_rows(const std::function<bool(int32_t, int64_t)>& pick, std::vector<Row>* rows) {
        std::vector<Row> all;
        if (db_.scan(context_.node(), staged_, &all) != DatabaseError::none) return false;
        for (const Row& row : all) {
            if (pick(staged_subtask(row.key), row.version)) rows->push_back(row);
        }
        return true;
    }

    // Commits every prepared checkpoint <= `id` in one transaction.
    bool commit_up_to(int64_t id) {
        std::vector<Prepared> due;
        for (const Prepared& p : prepared_) {
            if (p.checkpoint_id <= id) due.push_back(p);
        }
        if (due.empty()) return true;
        std::vector<Row> rows;
        const auto is_due = [&due](int32_t subtask, int64_t c) {
            return std::any_of(due.begin(), due.end(), [&](const Prepared& p) {
                return p.subtask == subtask && p.checkpoint_id == c;
            });
        };
        if (!staged_rows(is_due, &rows)) return false;
        Database::TransactionId txn = 0;
        DatabaseError e = db_.begin(context_.node(), &txn);
        for (size_t i = 0; e == DatabaseError::none && i < rows.size(); ++i) {
            const Record record = from_event_id(rows[i].value);
            e = db_.upsert(context_.node(), txn, options_.table,
                           Row{rows[i].value, record.value, rows[i].version}, false);
            if (e == DatabaseError::none)
                e = db_.remove(context_.node(), txn, staged_, rows[i].key);
        }
        if (e == DatabaseError::none) e = db_.commit(context_.node(), txn);
        if (e != DatabaseError::none) {
            db_.rollback(context_.node(), txn);
            if (options_.slip != DbXaSlip::ignore_commit_failure) return false;
        }
        prepared_.erase(std::remove_if(prepared_.begin(), prepared_.end(),
                                       [id](const Prepared& p) { return p.checkpoint_id <= id; }),
                        prepared_.end());
        std::vector<int64_t> committed;
        for (const Prepared& p : due) committed.push_back(p.checkpoint_id);
        std::sort(committed.begin(), committed.end());
        committed.erase(std::unique(committed.begin(), committed.end()), committed.end());
        for (int64_t c : committed)
            eosim::engine::announce_point(context_, eosim::engine::sink_points::kCommitted, c);
        return true;
    }

    // Deletes the staged rows of the subtasks this one answers for of checkpoints after `id` (an
    // earlier attempt's prepares; one at or below it is a restored state's, maybe another
    // subtask's).
    bool roll_back_after(int64_t id) {
        std::vector<Row> rows;
        const bool all = options_.slip == DbXaSlip::roll_back_restored;
        const auto stale = [this, id, all](int32_t subtask, int64_t c) {
            return std::find(owned_.begin(), owned_.end(), subtask) != owned_.end() &&
                   (all || c > id);
        };
        if (!staged_rows(stale, &rows)) return false;
        if (rows.empty()) return true;
        Database::TransactionId txn = 0;
        DatabaseError e = db_.begin(context_.node(), &txn);
        for (size_t i = 0; e == DatabaseError::none && i < rows.size(); ++i)
            e = db_.remove(context_.node(), txn, staged_, rows[i].key);
        if (e == DatabaseError::none) e = db_.commit(context_.node(), txn);
        if (e != DatabaseError::none) db_.rollback(context_.node(), txn);
        return e == DatabaseError::none;
    }

    void schedule_retry() {
        if (retry_scheduled_) return;
        retry_scheduled_ = true;
        context_.after(runtime_.commit_retry_delay, [this] {
            retry_scheduled_ = false;
            if (!commit_up_to(commit_target_)) schedule_retry();
        });
    }

    const DbXaOptions& options_;
    std::string staged_;
    eosim::engine::SinkContext& context_;
    Database& db_;
    const eosim::engine::RuntimeConfig& runtime_;
    eosim::engine::RecordBatch buffer_;
    std::vector<Prepared>
        prepared_;                // prepared, not yet committed; ascending checkpoints per subtask
    std::vector<int32_t> owned_;  // the subtasks whose staged rows this one answers for
    int64_t next_staged_ = 0;     // this attempt's staged rows so far
    int64_t commit_target_ = 0;
    bool retry_scheduled_ = false;
};

}  // namespace

std::unique_ptr<eosim::engine::Sink> DbXaConfig::make(
    eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
    const eosim::engine::RuntimeConfig& runtime) const {
    systems.database(eosim::engine::kSinkDatabase)
        ->create_table(options_.table);  // DDL, idempotent
    systems.database(eosim::engine::kSinkDatabase)->create_table(options_.table + "_staged");
    return std::make_unique<DbXaSink>(options_, context,
                                      *systems.database(eosim::engine::kSinkDatabase), runtime);
}

std::vector<Record> DbXaConfig::read_output(const eosim::engine::OutsideSystems& systems) const {
    std::vector<Record> out;
    if (!systems.database(eosim::engine::kSinkDatabase)->has_table(options_.table)) return out;
    for (const auto& [key, row] :
         systems.database(eosim::engine::kSinkDatabase)->table_contents(options_.table))
        out.push_back(from_event_id(key));
    return out;
}

eosim::engine::SinkKind db_xa_kind(const std::string& name, DbXaSlip slip) {
    return eosim::engine::SinkKind{
        name,
        "rows in a database table, two-phase commit through a staging table (XA-style, example)",
        [slip](eosim::engine::SinkOptions& options, const std::string&,
               const eosim::engine::SinkWorld& world) {
            if (!world.has_system("database"))
                options.fail("table", "a world with the database \"database\"");
            DbXaOptions o;
            o.table = options.string("table", "output");
            o.slip = slip;
            return std::make_shared<DbXaConfig>(std::move(o));
        }};
}

}  // namespace db_xa_example
