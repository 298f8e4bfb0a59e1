// The harness's failovers and restores (contract_harness.h): an incarnation that failed or crashed
// is replaced by a new one opened from the last completed checkpoint (at the same or another
// parallelism), and the final phase's checkpoints of everything written.
#include "testkit/contract_harness.h"
#include "testkit/contract_instances.h"

namespace eosim::testkit {

void ContractHarness::fail_over_if_failed() {
    if (incarnations_.empty() || violation_) return;
    Incarnation& last = *incarnations_.back();
    if (last.state == Incarnation::State::crashed) {  // a crash at a point, in the step
        restore("after the crash", failover_parallelism(armed_parallelism_));
        return;
    }
    if (last.state != Incarnation::State::failed) return;
    line(last.name() + " FAILS (" + last.failure + "); the job fails over");
    close_incarnation(last);
    restore("after the failure", parallelism_);
}

std::vector<engine::RestoredSinkState> ContractHarness::restored_states(int32_t subtask) const {
    std::vector<engine::RestoredSinkState> out;
    if (last_completed_ == 0) return out;
    const std::vector<std::string>& states = checkpoints_.at(last_completed_).states;
    for (size_t j = 0; j < states.size(); ++j) {
        const auto old_subtask = static_cast<int32_t>(j);
        if (engine::restoring_subtask(old_subtask, parallelism_) == subtask)
            out.push_back(engine::RestoredSinkState{old_subtask, states[j]});
    }
    return out;
}

ContractHarness::Incarnation& ContractHarness::add_incarnation(int32_t parallelism) {
    auto incarnation = std::make_unique<Incarnation>();
    incarnation->number = static_cast<int32_t>(incarnations_.size()) + 1;
    Incarnation& current = *incarnation;
    incarnations_.push_back(std::move(incarnation));
    for (int32_t i = 0; i < parallelism; ++i) {
        auto subtask = std::make_unique<Subtask>();
        subtask->incarnation = &current;
        subtask->index = i;
        subtask->node =
            world_.nodes().add("task-" + std::to_string(current.number) + "-" + std::to_string(i));
        subtask->context = std::make_unique<Context>(*this, *subtask);
        subtask->position = completed_position();
        current.subtasks.push_back(std::move(subtask));
    }
    return current;
}

// The paths counted for an incarnation that opened, and its line in the log.
void ContractHarness::log_opened(Incarnation& current, const char* why,
                                 int32_t restored_parallelism, bool failover) {
    const int32_t parallelism = parallelism_;
    if (paths_ != nullptr && restored_parallelism != parallelism)
        ++paths_->effects["restored at another parallelism"];
    if (paths_ != nullptr && restored_parallelism > parallelism)
        ++paths_->effects["restored at a smaller parallelism (scale-in)"];
    if (paths_ != nullptr && restored_parallelism != parallelism && failover)
        ++paths_->effects["rescaled at a failover"];
    if (paths_ != nullptr && parallelism > 1)
        ++paths_->effects["incarnations with parallel subtasks"];
    const std::string rescaled =
        restored_parallelism == parallelism
            ? std::string()
            : ", RESCALED from " + std::to_string(restored_parallelism) + " subtask(s)";
    line(current.name() + " opens " + why + " with " + std::to_string(parallelism) + " subtask(s)" +
             (last_completed_ == 0
                  ? std::string(" from scratch")
                  : " from checkpoint " + std::to_string(last_completed_) + " (covers #1..#" +
                        std::to_string(completed_position()) + ")" + rescaled),
         true);
}

void ContractHarness::restore(const char* why, int32_t parallelism) {
    const int32_t restored_parallelism =
        last_completed_ == 0 ? parallelism
                             : static_cast<int32_t>(checkpoints_.at(last_completed_).states.size());
    const bool failover =
        std::string_view(why).starts_with("after");  // "after the crash", "after the cancel", ...
    parallelism_ = parallelism;
    in_flight_.reset();  // a checkpoint in flight dies with the incarnation that took it
    for (int attempt = 0; attempt < kRestoreAttempts; ++attempt) {
        if (attempt > 0) {
            const sim::Time until = world_.now() + sim::Duration::seconds(1);  // the restart delay
            world_.scheduler().schedule_at(until, sim::kNoNode, kTick, 0, [] {});
            world_.scheduler().run_until(until);
        }
        Incarnation& current = add_incarnation(parallelism);
        log_calls();
        int32_t opened = 0;
        for (const auto& subtask : current.subtasks) {
            subtask->sink = config_->make(*subtask->context, systems_, options_.runtime);
            if (!subtask->sink->open(last_completed_, restored_states(subtask->index)) ||
                current.state != Incarnation::State::live)
                break;
            ++opened;
        }
        if (opened == parallelism) {
            log_opened(current, why, restored_parallelism, failover);
            return;
        }
        if (current.state == Incarnation::State::crashed)
            continue;  // at a point in open(): logged there
        if (current.state == Incarnation::State::live) {
            current.state = Incarnation::State::failed;
            current.failure = "subtask " + std::to_string(opened) + ": open returned false";
        }
        line(current.name() + " cannot open (" + current.failure + "); retried in 1 s", true);
        close_incarnation(current);
    }
    if (!violation_) {
        violation_ = "the sink did not start in " + std::to_string(kRestoreAttempts) +
                     " attempts a second apart (outside-system faults last at most a few seconds)";
    }
}

// Every subtask of `incarnation` writes what it has not, and a checkpoint of it all is
// pre-committed and completed (notified at once). False when the incarnation stopped being the live
// one before the checkpoint could complete.
bool ContractHarness::checkpoint_everything(Incarnation* incarnation) {
    in_flight_.reset();
    const int64_t written = static_cast<int64_t>(sequence_.size());
    for (const auto& subtask : incarnation->subtasks) {
        if (live() == incarnation) emit(*subtask, kEverything, nullptr, written);
    }
    fail_over_if_failed();
    for (int32_t i = 0; i < incarnation->parallelism() && live() == incarnation; ++i) pre_commit(0);
    if (live() != incarnation) return false;
    complete(0, Delivery::now);
    return true;
}

// Every subtask of the live incarnation writes what it has not, a checkpoint of it all completes,
// and the incarnation crashes at once: whatever it still had in flight dies with it.
void ContractHarness::checkpoint_then_crash() {
    Incarnation* incarnation = live();
    if (incarnation == nullptr || violation_) return;
    line("FINAL: " + incarnation->name() +
         " checkpoints everything written, then CRASHES (what it has in flight dies): "
         "a completed checkpoint must not need its calls in flight");
    if (!checkpoint_everything(incarnation) || live() != incarnation) return;
    line(incarnation->name() + " CRASHES right after the checkpoint completed");
    crash_incarnation(*incarnation, "crashed after the checkpoint");
    restore("after the crash", parallelism_);
}

}  // namespace eosim::testkit
