#pragma once
// The cuts a failed job's output is judged between (oracles::CommittedPrefix): the snapshots the
// deployment running at the end completed, in order, after what it started from (the savepoint of
// a later deployment, the restored checkpoint, or nothing read). Intermediate savepoints are left
// out (a sink commits nothing on them, as Flink since 1.15); stop-with-savepoint's final one
// counts.
//
// Only observes. Does not check anything: the output oracles judge with what it hands them.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocabulary/run_observer.h"
#include "oracles/oracle_registry.h"

namespace eosim::scenarios {

class CommittedCuts final : public engine::RunObserver {
public:
    void checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    // The first restore of a job started from a snapshot is its start; a restored checkpoint no
    // completion was heard of (found in storage) is a cut too.
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    // A later deployment starts from `from` (the run's hand-over, before its restore can fail).
    void deployment_started(const engine::SourceOffsets& from);
    // The newest completed cut and the one before it (both the start when none completed).
    oracles::CommittedPrefix prefix(const std::string& failure) const;

private:
    struct Cut {
        std::string name;
        engine::SourceOffsets offsets;
    };
    std::vector<Cut> cuts_{Cut{"the start", {}}};
    std::map<int64_t, bool> intermediate_savepoints_;  // triggered ids that commit nothing
};

}  // namespace eosim::scenarios
