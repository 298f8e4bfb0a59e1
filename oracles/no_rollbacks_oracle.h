#pragma once
// No rollbacks: no restore of the run (a deployment's start or a failover's) is older than what an
// exactly-once sink already committed (oracles/rollback_detector.h). An SRE's "no duplicates across
// the whole history": the output oracles judge each deployment from its own snapshot on, so a
// deployment started from an old savepoint, an old retained checkpoint or nothing passes them while
// it commits again what its sink had committed; a scenario that lists this oracle fails it.
//
// Does not check: sinks other than exactly-once Kafka sinks; whether the re-emitted output equals
// the first (the output oracles do); restores of a verification job.
#include "oracles/oracle.h"
#include "oracles/rollback_detector.h"

namespace eosim::oracles {

class NoRollbacksOracle final : public Oracle {
public:
    // `detector` hears the run's notifications; it must outlive this.
    explicit NoRollbacksOracle(const RollbackDetector& detector) : detector_(detector) {}
    const char* name() const override { return "no_rollbacks"; }
    Verdict verdict() const override;

private:
    const RollbackDetector& detector_;
};

}  // namespace eosim::oracles
