#pragma once
// The completed-checkpoint store of an HA JobManager, in the coordination service, after Flink's
// DefaultCompletedCheckpointStore over a ZooKeeperStateHandleStore: one persistent node per
// retained completed checkpoint, `/eosim/<job>/checkpoints/<id>`, holding the pointer to its
// metadata in checkpoint storage. The metadata is written first; a checkpoint is complete exactly
// when its pointer is in the store (added with the leader's fence), and only then are the tasks
// notified. Retention and subsumption remove the pointer (fenced) before deleting any file.
// Recovery reads the store and the metadata it points to -- never a listing of checkpoint storage,
// so a metadata file that lands late (a dead JobManager's write) is never mistaken for a completed
// checkpoint.
//
// A value type (the session, fence and paths copied in): its chained callbacks hold no pointer to
// a process that may be gone; the caller's own callbacks decide whether they still apply.
//
// The coordinator's side (checkpoint_coordinator.h): with use_high_availability the id comes from
// the counter (checkpoint_id_counter.h); after the metadata is durable the checkpoint's pointer is
// added here, and only then is it complete (announced, notified). A store add whose outcome is
// unknown (no answer) neither completes nor aborts the checkpoint: the leader resigns (Flink's
// PossibleInconsistentStateException: its files are kept), and the next leader restores what the
// store says; a removal of unknown outcome keeps the files.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/checkpointing/leader_session.h"
#include "engine/vocabulary/deployment.h"
#include "sim/external/coordination_service.h"
#include "sim/storage.h"

namespace eosim::engine {

class CompletedCheckpointStore {
public:
    using Done = std::function<void(sim::external::CoordinationStatus)>;
    using Recovered = std::function<void(bool ok, std::vector<CompletedCheckpoint> retained)>;

    CompletedCheckpointStore(const LeaderSession& session, sim::DurableStorage& storage,
                             sim::NodeId node);

    void add(const CompletedCheckpoint& checkpoint, Done done) const;
    void remove(int64_t checkpoint_id, Done done) const;
    // Every checkpoint in the store, oldest first, with its metadata read from storage.
    void recover(Recovered done) const;

    std::string entry_path(int64_t checkpoint_id) const;

private:
    void read_metadata(std::vector<std::string> keys, std::vector<CompletedCheckpoint> read,
                       Recovered done) const;

    sim::external::CoordinationService* service_;
    sim::DurableStorage* storage_;
    sim::NodeId node_;
    sim::external::SessionId session_;
    sim::external::Fence fence_;
    std::string dir_;
};

}  // namespace eosim::engine
