#pragma once
// A task's operator chain (Flink's OperatorChain): what the vertex runs -- a source reader, a sink,
// or an operator with its keyed state -- and what the task asks of it: process a buffer, capture
// the state for a checkpoint, hear that a checkpoint completed or was aborted, take the restored
// state. eosim chains no operators: a chain holds exactly one of the three.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/source_reader.h"
#include "engine/runtime/operators.h"
#include "engine/state/state_backend.h"
#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/snapshot_type.h"

namespace eosim::engine {

class Task;

// The state an operator chain captured for a checkpoint.
struct OperatorSnapshot {
    std::string state;      // the blob (incremental keyed state: its private part)
    SourceOffsets offsets;  // a source's offsets
    std::optional<IncrementalSnapshot> incremental;  // incremental keyed state: the shared files
};

class OperatorChain {
public:
    // Builds what `task`'s vertex runs; an operator emits into `output`.
    OperatorChain(Task& task, Emit output);
    ~OperatorChain();

    SourceReader* source() { return source_.get(); }
    Sink* sink() { return sink_.get(); }
    const Sink* sink() const { return sink_.get(); }
    Operator* op() { return operator_.get(); }
    KeyedStateBackend* keyed_state() { return operator_ ? operator_->keyed_state() : nullptr; }
    const Emit& output() const { return output_; }

    // A buffer from the input edge `edge`: to the sink, or record by record to the operator.
    void process(int32_t edge, const RecordBatch& records) {
        if (sink_) {
            sink_->write(records);
            return;
        }
        for (const Record& record : records) operator_->process(edge, record, output_);
    }
    // Captures the state of `checkpoint_id` (a savepoint in the canonical form). False with
    // `error` set when the sink cannot pre-commit.
    bool snapshot_state(int64_t checkpoint_id, SnapshotType type, OperatorSnapshot* snapshot,
                        std::string* error);
    void checkpoint_complete(int64_t checkpoint_id);
    void checkpoint_aborted(int64_t checkpoint_id);
    // The restored blobs of `checkpoint_id` (0: none), `subtasks[i]` the subtask that wrote
    // `blobs[i]`, with the shared files incremental keyed state names; `savepoint`: in the
    // canonical form; `no_claim`: another job's checkpoint, whose shared files the restored keyed
    // state must not refer to.
    void restore(const std::vector<std::string>& blobs, const std::vector<int32_t>& subtasks,
                 const std::map<std::string, std::string>& shared, bool savepoint, bool no_claim,
                 int64_t checkpoint_id);
    // Opens the sink on its restored state; false when it cannot start (it failed the task).
    bool open(int64_t restored_checkpoint_id);
    void close();

private:
    void announce_window_firings();  // window.fired for a window operator's firings

    Task& task_;
    Emit output_;
    std::unique_ptr<Operator> operator_;
    std::unique_ptr<SourceReader> source_;
    std::unique_ptr<Sink> sink_;
    bool sink_opened_ = false;  // open() was called (close() is called only then)
    std::vector<RestoredSinkState> restored_sink_states_;  // handed to the sink's open
    bool restored_ = false;
};

}  // namespace eosim::engine
