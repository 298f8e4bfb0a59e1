#pragma once
// An asynchronous bulk writer into the document store, after Flink's AsyncSinkWriter as the
// Elasticsearch connector uses it (written with public headers only):
// - records go into a buffer; a full batch (`max_batch_size` entries) is sent as one bulk request
//   with an asynchronous call (SinkContext::call) while fewer than `max_in_flight` requests are in
//   flight; the answer comes later, in the writer's callback;
// - a failed request (unavailable, write errors, timeout) or a failed item of a bulk answer (a
//   partial failure: `rejected`) puts its entries back at the FRONT of the buffer, to be sent
//   again;
// - at the barrier, prepare_pre_commit is Flink's flush(true): it sends everything buffered and
// says
//   ready only when the buffer is empty and nothing is in flight (the task waits, taking no input,
//   while answers keep coming); a completed checkpoint therefore covers every record before its
//   barrier. Nothing goes into the checkpoint: after a restore the job replays from it;
// - each record indexes its own document, named by its content ("k<key>-v<value>", fields key and
//   value: the document id an Elasticsearch user derives from the record; the job's records are
//   unique by key and value), so a replayed, a zombie's or a late write rewrites the same document:
//   at-least-once writes without duplicates; records are visible before their checkpoint completes.
// - a callback touches only the writer that made the call; a closed writer sends nothing new (its
//   late answers still arrive, and are only accounted).
// Announces sink.flushed (detail: entries written) when a bulk answer comes, sink.precommitted at
// pre-commit, sink.committed when a checkpoint completes (its records are in the store by then: a
// crash there finds out whether they really are).
//
// Options: "index" (default "async"), "max_batch_size" (default 3), "max_in_flight" (default 2).
// Output shape: appended (one record per document). Guarantee: at-least-once (as Flink's
// Elasticsearch and DynamoDB sinks); test it with ContractOptions::guarantee = at_least_once.
//
// The slips (AsyncSlip), each an examples/async-sink-* twin:
// - `no_wait`: prepare_pre_commit sends what fits and says ready at once (flush(false) where
//   flush(true) belongs), pre_commit does not look: a checkpoint completes over requests in flight;
// - `drop_failed`: failed entries (a failed request, the failed items of a bulk answer) are
// dropped;
// - `stale_completion`: the writers count their requests in flight in a counter shared by every
//   writer of a subtask in the process (a static AtomicInteger, in Java), reset when a writer
//   opens; the flush waits for that counter. A cancelled attempt's late answers decrement it after
//   the current attempt's writer opened: the current attempt then pre-commits over requests still
//   in flight.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_points.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/document_store.h"

namespace async_sink_example {

enum class AsyncSlip { none, no_wait, drop_failed, stale_completion };

struct AsyncOptions {
    std::string index = "async";
    int32_t max_batch_size = 3;
    int32_t max_in_flight = 2;
    AsyncSlip slip = AsyncSlip::none;
};

// The buggy twin's shared in-flight counter (AsyncSlip::stale_completion), per subtask of each
// world (thread-safe: job-level runs may run in parallel).
class SharedInFlight {
public:
    void reset(const void* world, int32_t subtask);
    void add(const void* world, int32_t subtask, int64_t delta);
    int64_t count(const void* world, int32_t subtask) const;

private:
    mutable std::mutex mutex_;
    std::map<std::pair<const void*, int32_t>, int64_t> counts_;
};

class AsyncConfig final : public eosim::engine::SinkConfig {
public:
    explicit AsyncConfig(AsyncOptions options) : options_(std::move(options)) {}
    std::unique_ptr<eosim::engine::Sink> make(
        eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
        const eosim::engine::RuntimeConfig& runtime) const override;
    std::vector<eosim::engine::Record> read_output(
        const eosim::engine::OutsideSystems& systems) const override;
    std::vector<std::string> claims() const override {
        return {"document index \"" + options_.index + "\""};
    }
    // Every point its sinks announce (a scenario's fault may aim at these; announcing another
    // throws).
    std::vector<std::string_view> announced_points() const override {
        return {eosim::engine::sink_points::kPrecommitted, eosim::engine::sink_points::kCommitted,
                eosim::engine::sink_points::kFlushed};
    }

private:
    AsyncOptions options_;
    mutable SharedInFlight shared_in_flight_;  // used by the stale_completion slip only
};

// The sink kind `name` (options above); a slip makes a buggy variant.
eosim::engine::SinkKind async_kind(const std::string& name, AsyncSlip slip = AsyncSlip::none);

}  // namespace async_sink_example
