#pragma once
// A keyed-table sink over the key-value store (sim/external/key_value_store.h), idempotent: after
// Flink's Redis / JDBC upsert sinks, written with public headers only.
//
// - Each record (key, value) sets "<prefix><key>" to `value`; the value is the row's version (it
//   grows with the job's output for a key: a running count), so a write is guarded: GET, then
//   compare-and-set only when the stored version is older (a replayed or a zombie's older write
//   changes nothing, and no reader sees a key go backwards).
// - Writes are sent at once; a write that fails (unavailable, write errors) stays pending and is
//   sent again at the next write and at pre-commit. Pre-commit fails the checkpoint while anything
//   is pending, so a completed checkpoint means every record before its barrier is in the store.
// - Nothing is kept in the checkpoint: after a restore the job replays from the checkpoint and the
//   guard absorbs what the store already holds.
// Announces sink.flushed after a batch reached the store and sink.precommitted at pre-commit.
//
// - A write answered `timeout` (calls that race) may have applied or may still land: it stays
//   pending too; the retry's GET tells, and the compare-and-set makes a late landing harmless.
//
// Options: "prefix" (default "table:"). Output shape: keyed_table (every key under the prefix).
// The slips (KvTableSlip): `no_version_guard`, the slip of examples/kv-table-sink-buggy: a plain
// SET, so the replay after a restore writes older versions over newer ones until it catches up;
// `check_then_set` (tests/testkit/test_connector_bugs.cpp): the guard as two calls, GET then SET
// when newer, so a SET that timed out and lands late puts an older version back;
// `dedup_by_key_set` (tests/testkit/test_connector_bugs.cpp; risingwavelabs/risingwave#25985: a
// DynamoDB sink deduplicated a batch by the set of its primary-key values, so the composite keys
// (a, b) and (b, a) were one): the pending writes are deduplicated by the set {key / 2, key % 2},
// so keys 1 and 2 replace each other's pending write and one of them is never written.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_points.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/key_value_store.h"

namespace kv_table_example {

enum class KvTableSlip {
    none,
    no_version_guard,  // a plain SET (examples/kv-table-sink-buggy)
    check_then_set,    // GET, then a plain SET when the stored version is older
    dedup_by_key_set,  // pending writes deduplicated by an identity two keys share
                       // (risingwave#25985)
};

struct KvTableOptions {
    std::string prefix = "table:";
    KvTableSlip slip = KvTableSlip::none;
};

class KvTableConfig final : public eosim::engine::SinkConfig {
public:
    explicit KvTableConfig(KvTableOptions options) : options_(std::move(options)) {}
    std::unique_ptr<eosim::engine::Sink> make(
        eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
        const eosim::engine::RuntimeConfig& runtime) const override;
    eosim::engine::SinkOutputShape output_shape() const override {
        return eosim::engine::SinkOutputShape::keyed_table;
    }
    std::vector<eosim::engine::Record> read_output(
        const eosim::engine::OutsideSystems& systems) const override;
    std::vector<std::string> claims() const override {
        return {"key-value prefix \"" + options_.prefix + "\""};
    }
    // Every point its sinks announce (a scenario's fault may aim at these; announcing another
    // throws).
    std::vector<std::string_view> announced_points() const override {
        return {eosim::engine::sink_points::kPrecommitted, eosim::engine::sink_points::kFlushed};
    }

private:
    KvTableOptions options_;
};

// The sink kind `name` (options: "prefix"); a slip makes a buggy variant.
eosim::engine::SinkKind kv_table_kind(const std::string& name,
                                      KvTableSlip slip = KvTableSlip::none);

}  // namespace kv_table_example
