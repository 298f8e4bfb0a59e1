#include "engine/runtime/operator_chain.h"

#include <algorithm>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/connectors/sink_registry.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"
#include "engine/runtime/window_operator.h"
#include "engine/state/key_groups.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

OperatorChain::OperatorChain(Task& task, Emit output) : task_(task), output_([](const Record&) {}) {
    Engine& engine = task.engine();
    const JobSpec& job = engine.job();
    const VertexSpec& vertex = task.vertex();
    const TaskKey& key = task.key();
    if (is_source_kind(vertex.kind)) {
        const SourceServices services{engine.services().systems.kafka,
                                      engine.services().systems.database(kCdcSourceDatabase),
                                      &engine.services().input_end_offsets};
        source_ = make_source_reader(vertex, task, services, key.subtask);
    } else if (vertex.kind == OperatorKind::sink) {
        sink_ = vertex.sink->make(task, engine.services().systems, task.runtime());
    } else {
        std::unique_ptr<KeyedStateBackend> state;
        if (is_keyed(vertex.kind)) {
            state = make_state_backend(
                job.state_backend,
                KeyGroupRange::of_subtask(key.subtask, vertex.parallelism, job.max_parallelism),
                job.max_parallelism,
                vertex.id + "-" + std::to_string(key.subtask) + "-a" + std::to_string(key.attempt));
        }
        operator_ = make_operator(vertex, std::move(state));
        output_ = std::move(output);
        announce_window_firings();
    }
}

OperatorChain::~OperatorChain() = default;

// A window operator's firings are protocol points (window.fired), so a fault can follow one.
void OperatorChain::announce_window_firings() {
    auto* window = dynamic_cast<WindowOperator*>(operator_.get());
    if (window == nullptr) return;
    window->set_fired_listener(
        [this](int64_t max_timestamp) { task_.announce(points::kWindowFired, max_timestamp); });
}

bool OperatorChain::snapshot_state(int64_t checkpoint_id, SnapshotType type,
                                   OperatorSnapshot* snapshot, std::string* error) {
    if (source_) {
        snapshot->state = source_->snapshot(checkpoint_id);
        source_->add_offsets(&snapshot->offsets);
    } else if (sink_) {
        return sink_->pre_commit(checkpoint_id, &snapshot->state, error);
    } else if (KeyedStateBackend* keyed = keyed_state();
               keyed != nullptr && keyed->incremental() && !type.is_savepoint()) {
        IncrementalSnapshot incremental = keyed->snapshot_incremental(
            checkpoint_id, shared_state_prefix(task_.engine().job(), checkpoint_id, task_.key()));
        snapshot->state = std::move(incremental.private_state);
        snapshot->incremental = std::move(incremental);
    } else if (keyed != nullptr) {
        // A savepoint is in the canonical form, whichever backend wrote it.
        snapshot->state = type.is_savepoint() ? keyed->canonical_snapshot() : keyed->snapshot();
    }
    return true;
}

void OperatorChain::checkpoint_complete(int64_t checkpoint_id) {
    if (KeyedStateBackend* keyed = keyed_state()) keyed->checkpoint_confirmed(checkpoint_id);
    if (sink_) sink_->checkpoint_complete(checkpoint_id);
    if (source_) source_->checkpoint_complete(checkpoint_id);
}

void OperatorChain::checkpoint_aborted(int64_t checkpoint_id) {
    if (KeyedStateBackend* keyed = keyed_state()) keyed->checkpoint_aborted(checkpoint_id);
}

void OperatorChain::restore(const std::vector<std::string>& blobs,
                            const std::vector<int32_t>& subtasks,
                            const std::map<std::string, std::string>& shared, bool savepoint,
                            bool no_claim, int64_t checkpoint_id) {
    EOSIM_INVARIANT(!restored_, "an operator chain takes its restored state once");
    restored_ = true;
    if (source_) source_->restore(blobs);
    if (KeyedStateBackend* keyed = keyed_state()) {
        const bool incremental =
            std::any_of(blobs.begin(), blobs.end(),
                        [](const std::string& blob) { return is_incremental_state(blob); });
        if (savepoint) {
            keyed->restore_canonical(blobs);
        } else if (incremental) {
            keyed->restore_incremental(blobs, shared);
            if (no_claim) keyed->disown_restored_files();
        } else {
            keyed->restore(blobs);
        }
        if (checkpoint_id > 0) {
            const TaskKey& key = task_.key();
            const std::string& vertex = task_.vertex().id;
            RunObserver& observer = task_.observer();
            observer.keyed_state_restored(task_.world().now(), key.attempt, vertex, key.subtask,
                                          keyed->contents());
            if (task_.vertex().kind == OperatorKind::join) {
                observer.keyed_cells_restored(task_.world().now(), key.attempt, vertex, key.subtask,
                                              keyed->cells());
            }
        }
    }
    // A sink gets every state the task read, each with the subtask that wrote it.
    if (sink_) {
        for (size_t i = 0; i < blobs.size(); ++i)
            restored_sink_states_.push_back(RestoredSinkState{subtasks[i], blobs[i]});
    }
}

bool OperatorChain::open(int64_t restored_checkpoint_id) {
    if (!sink_) return true;
    const std::vector<RestoredSinkState> restored = std::move(restored_sink_states_);
    restored_sink_states_.clear();
    sink_opened_ = true;
    return sink_->open(restored_checkpoint_id, restored);
}

// Only a sink that opened is closed (engine/connectors/sink.h, "An instance's life"): a task
// cancelled during its restore never opened it, as Flink creates a sink writer only on restore.
void OperatorChain::close() {
    if (sink_ && sink_opened_) sink_->close();
}

}  // namespace eosim::engine
