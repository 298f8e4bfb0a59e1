#pragma once
// A two-phase-commit (XA-style) sink into a database table (sim/external/database.h), after Flink's
// JDBC exactly-once sink, written with public headers only.
//
// The database has no XA PREPARE of its own, so the sink prepares durably by itself: a prepared
// transaction is a set of rows in a staging table, committed there at pre-commit; the commit of a
// checkpoint moves its staged rows into the output table in one database transaction.
// - Records are buffered; at pre-commit (checkpoint N) they go into "<table>_staged" in one
//   transaction, each row under a key unique to the attempt, subtask and row (a zombie of an
//   earlier attempt cannot overwrite them), tagged with N (the row's version). The sink's state is
//   the list of checkpoints it prepared and has not committed yet. A failed prepare fails the
//   checkpoint.
// - checkpoint_complete(N) commits every prepared checkpoint up to N: one transaction upserts their
//   staged rows into "<table>" and deletes them from the staging table. Committing again is
//   harmless (the staged rows are gone; the output row's key is the record's event id, so an
//   upsert of the same row changes nothing). A commit that fails is retried (SinkContext::after).
// - open(C, state) commits the prepared checkpoints of the state (C completed, whether or not its
//   notification arrived) and rolls back (deletes) the staged rows of this subtask's checkpoints
//   after C: prepared by an attempt that failed, they will be written again by the replay.
// Announces sink.precommitted, sink.committed and sink.recovered.
//
// Options: "table" (default "output"). Output shape: appended records (every row of the table; the
// row's primary key is the event id key << 32 | value).
// The slips (DbXaSlip): `roll_back_restored` (examples/db-xa-sink-buggy): on recovery it rolls back
// every staged row, those of the restored checkpoint too -- lost when that checkpoint's
// notification never arrived before the failure; `ignore_commit_failure`: a commit that failed is
// taken as done (its prepared rows are never committed).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_points.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/database.h"

namespace db_xa_example {

enum class DbXaSlip { none, roll_back_restored, ignore_commit_failure };

struct DbXaOptions {
    std::string table = "output";
    DbXaSlip slip =
        DbXaSlip::none;  // the buggy variants (examples/db-xa-sink-buggy: roll_back_restored)
};

class DbXaConfig final : public eosim::engine::SinkConfig {
public:
    explicit DbXaConfig(DbXaOptions options) : options_(std::move(options)) {}
    std::unique_ptr<eosim::engine::Sink> make(
        eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
        const eosim::engine::RuntimeConfig& runtime) const override;
    std::vector<eosim::engine::Record> read_output(
        const eosim::engine::OutsideSystems& systems) const override;
    std::vector<std::string> claims() const override {
        return {"database table \"" + options_.table + "\""};
    }
    // Every point its sinks announce (a scenario's fault may aim at these; announcing another
    // throws).
    std::vector<std::string_view> announced_points() const override {
        return {eosim::engine::sink_points::kPrecommitted, eosim::engine::sink_points::kCommitted,
                eosim::engine::sink_points::kRecovered};
    }

private:
    DbXaOptions options_;
};

// The sink kind `name` (options: "table"); a slip makes a buggy variant.
eosim::engine::SinkKind db_xa_kind(const std::string& name, DbXaSlip slip);

}  // namespace db_xa_example
