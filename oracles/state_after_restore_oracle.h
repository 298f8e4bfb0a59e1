#pragma once
// State after each restore: when an attempt restores from checkpoint N, the keyed state its
// subtasks load, put together, equals the reference model's keyed state over the input prefix
// named by N's source offsets. That is what makes a checkpoint a consistent cut: the state
// reflects exactly the records before the barrier. At-least-once checkpointing breaks it (records
// that overtook a barrier are counted in the state and replayed after the restore).
//
// Checks: every keyed vertex, every restore from a checkpoint. Does not check: operator state of
// sources and sinks (the output oracles see its effects), restores from scratch (nothing to load).
#include <map>
#include <optional>
#include <set>
#include <string>

#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class StateAfterRestoreOracle final : public Oracle {
public:
    StateAfterRestoreOracle(const ReferenceModel& model, const engine::JobSpec& job) : model_(model), job_(job) {}
    const char* name() const override { return "state_after_restore"; }
    Verdict verdict() const override;

    void restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id, const engine::SourceOffsets& offsets) override;
    void keyed_state_restored(sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
                              const std::map<int64_t, int64_t>& state) override;

private:
    struct Restore {
        int64_t checkpoint_id = 0;
        engine::SourceOffsets offsets;
        std::map<std::string, std::map<int64_t, int64_t>> loaded;  // vertex -> merged state
        std::map<std::string, std::set<int32_t>> subtasks;          // vertex -> subtasks loaded
    };
    void check(sim::Time at, const Restore& restore, const std::string& vertex);

    const ReferenceModel& model_;
    const engine::JobSpec& job_;
    std::map<int64_t, Restore> restores_;  // by attempt
    int64_t restores_checked_ = 0;
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
