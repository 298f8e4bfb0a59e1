#include "oracles/stop_with_savepoint_oracle.h"

#include <memory>

#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {

std::string split_name(const std::pair<std::string, int32_t>& split) {
    return split.first + "/" + std::to_string(split.second);
}

// The first split whose offset differs between `expected` and `actual` (or that only one names).
std::optional<std::string> first_difference(const engine::SourceOffsets& expected,
                                            const engine::SourceOffsets& actual) {
    for (const auto& [split, offset] : expected) {
        auto it = actual.find(split);
        if (it == actual.end())
            return split_name(split) + ": expected offset " + std::to_string(offset) +
                   ", not resumed by any subtask";
        if (it->second != offset) {
            return split_name(split) + ": expected offset " + std::to_string(offset) + ", found " +
                   std::to_string(it->second);
        }
    }
    for (const auto& [split, offset] : actual) {
        if (!expected.contains(split))
            return split_name(split) + ": at offset " + std::to_string(offset) +
                   ", which the snapshot does not name";
    }
    return std::nullopt;
}

}  // namespace

void StopWithSavepointOracle::violate(sim::Time at, const std::string& what) {
    if (!violation_) violation_ = what + " (at " + sim::seconds_text(at) + ")";
}

void StopWithSavepointOracle::program_started(const engine::JobSpec& job, bool from_previous_stop) {
    job_ = &job;
    deployment_starting_ = from_previous_stop;
}

int32_t StopWithSavepointOracle::source_subtasks() const {
    int32_t n = 0;
    for (const engine::VertexSpec& v : job_->vertices) {
        if (engine::is_source_kind(v.kind)) n += v.parallelism;
    }
    return n;
}

void StopWithSavepointOracle::source_read(sim::Time at, int64_t attempt, const std::string& vertex,
                                          int32_t subtask, int64_t records) {
    auto it = stopped_.find({attempt, vertex, subtask});
    if (it == stopped_.end()) return;
    violate(at, "source " + vertex + "[" + std::to_string(subtask) + "] read and emitted " +
                    std::to_string(records) + " records after the barrier of stop-with-savepoint " +
                    std::to_string(it->second) + " (attempt " + std::to_string(attempt) + ")");
}

void StopWithSavepointOracle::source_stopped_for_savepoint(sim::Time, int64_t attempt,
                                                           const std::string& vertex,
                                                           int32_t subtask, int64_t savepoint_id,
                                                           const engine::SourceOffsets& position) {
    stopped_[{attempt, vertex, subtask}] = savepoint_id;
    Stop& stop = stops_[savepoint_id];
    if (stop.attempt != attempt) stop = Stop{attempt, {}};
    stop.positions.insert(position.begin(), position.end());
    ++stops_checked_;
}

void StopWithSavepointOracle::restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id,
                                              const engine::SourceOffsets& offsets) {
    const bool handover = deployment_starting_;
    deployment_starting_ = false;
    if (checkpoint_id == 0) return;
    restores_[attempt] = Restore{checkpoint_id, offsets, {}, {}};
    auto stop = stops_.find(checkpoint_id);
    if (!handover || stop == stops_.end()) return;
    ++handovers_checked_;
    if (auto difference = first_difference(stop->second.positions, offsets)) {
        violate(at,
                "the next deployment starts from stop-with-savepoint " +
                    std::to_string(checkpoint_id) +
                    " elsewhere than where the stopped sources took its barrier: " + *difference);
    }
}

void StopWithSavepointOracle::source_restored(sim::Time at, int64_t attempt,
                                              const std::string& vertex, int32_t subtask,
                                              int64_t checkpoint_id,
                                              const engine::SourceOffsets& position) {
    auto it = restores_.find(attempt);
    if (it == restores_.end() || it->second.checkpoint_id != checkpoint_id) return;
    Restore& restore = it->second;
    if (!restore.subtasks.insert({vertex, subtask}).second) return;
    for (const auto& [split, offset] : position) {
        auto expected = restore.offsets.find(split);
        if (expected == restore.offsets.end() || expected->second != offset) {
            violate(at, "source " + vertex + "[" + std::to_string(subtask) + "] resumed " +
                            split_name(split) + " at offset " + std::to_string(offset) +
                            " after restoring snapshot " + std::to_string(checkpoint_id) +
                            ", whose offset is " +
                            (expected == restore.offsets.end() ? std::string("none")
                                                               : std::to_string(expected->second)));
            return;
        }
    }
    restore.resumed.insert(position.begin(), position.end());
    if (static_cast<int32_t>(restore.subtasks.size()) != source_subtasks()) return;
    ++restores_checked_;
    if (auto difference = first_difference(restore.offsets, restore.resumed)) {
        violate(at, "after restoring snapshot " + std::to_string(checkpoint_id) +
                        " the sources do not resume where it says: " + *difference);
    }
}

Verdict StopWithSavepointOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    return Verdict{true, std::to_string(stops_checked_) +
                             " source subtasks read nothing after a stop-with-savepoint barrier; " +
                             std::to_string(handovers_checked_) +
                             " deployments started exactly at the stopping savepoint's offsets; " +
                             std::to_string(restores_checked_) +
                             " restores resumed every split at the snapshot's offset"};
}

OracleRegistration stop_with_savepoint_registration() {
    return {
        "stop_with_savepoint",
        "after a stop-with-savepoint barrier no source reads or emits, and the next deployment starts exactly at the savepoint's offsets",
        [](const OracleJobFacts& facts) -> std::string {
            return facts.has_deployments
                       ? ""
                       : "\"deployments\" (it judges each deployment's stop-with-savepoint)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto oracle = std::make_unique<StopWithSavepointOracle>(run.job);
            StopWithSavepointOracle* stops = oracle.get();
            auto from_stop = std::make_shared<bool>(false);
            run.hooks.on_hand_over(
                [from_stop](bool from_previous_stop) { *from_stop = from_previous_stop; });
            run.hooks.on_program([stops, from_stop](const engine::JobSpec& job) {
                stops->program_started(job, *from_stop);
            });
            return oracle;
        }};
}

}  // namespace eosim::oracles
