#pragma once
// The "upsert" sink kind: a sink into a database table (after Flink's JDBC sink in upsert mode):
// each change becomes an `INSERT ... ON DUPLICATE KEY UPDATE` on the record's key, buffered per key
// (the last change of a key in a batch wins, as in Flink's reduce buffer) and written as one
// transaction when `batch_size` keys are buffered and at every checkpoint barrier.
//
// Delivery guarantee: at-least-once writes whose effect is exactly-once. `pre_commit` flushes the
// buffer and the checkpoint fails (and the task with it) if the flush fails, so every change before
// a completed checkpoint is in the table; after a failure the job replays from that checkpoint and
// the sink writes the replayed changes again. A replayed write is idempotent on the key: the final
// table is the same as without the failure. Nothing is kept in the checkpoint.
//
// What the version guard adds (`version_guard`, on by default): during the replay the table holds
// newer rows than the replayed changes; an unguarded write puts the older value back until the
// replay catches up, so a reader of the table sees a key go backwards. With the guard each write is
// `... UPDATE ... WHERE version < new_version`: an older or equal version changes nothing (counted
// as a duplicate absorbed). The version is the record's: the source row's `version` column, which
// the application raises with every change of the row (a CDC pipeline that copies rows). It is part
// of the data, so a replayed change, and a row re-read by a snapshot chunk after a restore, carries
// exactly the version it carried the first time; the binlog position would not do (a re-read chunk
// emits a row under a later position than the change that made it). A keyed aggregate over a
// changelog has no such version (see engine/runtime/operators.cpp), so the loader allows the guard
// only where the records carry the row's own version; an aggregate's upsert sink runs unguarded:
// its final table is still exact (a key's writes come from one subtask, in order; the last wins),
// but during a replay a reader may see a key go backwards, as with Flink's JDBC upsert sink.
// A delete is written as a tombstone row (deleted, with its version) under the guard, so that an
// older replayed insert cannot bring the row back; the unguarded sink deletes the row.
// Update_before changes are skipped (the next update_after replaces the row).
//
// Options: "table" (required; created in the target database, node mysql-target), "version_guard"
// (default true), "batch_size" (keys per batch, default 64). Output shape: keyed_table (the rows
// not deleted).
//
// Not covered: writes that land but whose acknowledgement is lost (the model has none), and keys
// written by two sink subtasks (a hash edge to the sink keeps a key on one subtask).
#include <cstdint>
#include <map>
#include <string>

#include "engine/connectors/sink_registry.h"

namespace eosim::engine {

struct UpsertSinkOptions {
    std::string table;
    bool version_guard = true;
    int32_t batch_size = 64;
};

class UpsertSinkConfig final : public SinkConfig {
public:
    explicit UpsertSinkConfig(UpsertSinkOptions options) : options_(std::move(options)) {}
    const UpsertSinkOptions& options() const { return options_; }
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig& runtime) const override;
    SinkOutputShape output_shape() const override { return SinkOutputShape::keyed_table; }
    std::vector<Record> read_output(const OutsideSystems& systems) const override;
    std::vector<std::string> claims() const override {
        return {"target table \"" + options_.table + "\""};
    }
    std::vector<std::string_view> announced_points() const override;  // sink.flushed

private:
    UpsertSinkOptions options_;
};

// The upsert options of a sink vertex of kind "upsert"; nullptr for any other vertex.
const UpsertSinkOptions* upsert_sink_options(const VertexSpec& vertex);

class UpsertSink final : public Sink {
public:
    UpsertSink(const UpsertSinkOptions& options, SinkContext& context,
               sim::external::Database& database);

    bool open(int64_t restored_checkpoint_id,
              const std::vector<RestoredSinkState>& restored) override;
    void write(const RecordBatch& records) override;
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override;
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

private:
    struct Change {
        int64_t value = 0;
        int64_t version = 0;
        bool remove = false;
    };
    // Writes the buffer as one transaction; returns an error message on failure ("" when written).
    std::string flush();

    SinkContext& context_;
    sim::external::Database& database_;
    std::string table_;
    bool guarded_;
    size_t batch_size_;
    std::map<int64_t, Change> buffer_;
};

}  // namespace eosim::engine
