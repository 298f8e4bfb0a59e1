#include "scenarios/run_shape.h"

#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/snapshot_type.h"

namespace eosim::scenarios {

void RunShapeObserver::checkpoint_triggered(sim::Time, int64_t, engine::SnapshotType type) {
    job_event(type.is_savepoint() ? "S" : "T");
}

void RunShapeObserver::checkpoint_completed(sim::Time, int64_t, const engine::SourceOffsets&) {
    job_event("C");
}

void RunShapeObserver::checkpoint_aborted(sim::Time, int64_t,
                                          engine::CheckpointFailureReason reason,
                                          const std::string&) {
    job_event(std::string("A:") + engine::to_string(reason));
}

void RunShapeObserver::restore_started(sim::Time, int64_t, int64_t checkpoint_id,
                                       const engine::SourceOffsets&) {
    job_event(checkpoint_id > 0 ? "R" : "R0");  // R0: from scratch, no checkpoint to restore
}

void RunShapeObserver::failover(sim::Time, int64_t, const std::string&) { job_event("F"); }

void RunShapeObserver::transaction_event(sim::Time, const std::string& transactional_id,
                                         const char* what) {
    append(transactions_[transactional_id], "txn:", what);
    if (!transaction_since_job_event_) {
        keys_.insert("txn@job:" + last_job_symbol_ + ">" + what);
        transaction_since_job_event_ = true;
    }
}

void RunShapeObserver::likely_data_loss(sim::Time, const std::string& transactional_id,
                                        const std::string&) {
    append(transactions_[transactional_id], "txn:", "lost");
}

void RunShapeObserver::job_event(const std::string& symbol) {
    append(job_, "job:", symbol);
    last_job_symbol_ = symbol;
    transaction_since_job_event_ = false;
}

void RunShapeObserver::append(Stream& stream, const std::string& prefix,
                              const std::string& symbol) {
    if (!stream.previous[1].empty()) {
        keys_.insert(prefix + (stream.previous[0].empty() ? std::string("^") : stream.previous[0]) +
                     ">" + stream.previous[1] + ">" + symbol);
    }
    stream.previous[0] = std::move(stream.previous[1]);
    stream.previous[1] = symbol;
}

}  // namespace eosim::scenarios
