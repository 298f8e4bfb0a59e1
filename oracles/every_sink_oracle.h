#pragma once
// One output oracle (exactly-once or at-least-once) over several sinks: the job's sinks and those a
// later deployment's program adds. Holds one oracle of the same kind per sink (each names its sink
// in its messages) and passes only when each of them passes. A violation's message is those of the
// sinks' oracles that fired, a pass's those of all, joined by "; " in the order they were added (a
// single sink's verdict is its oracle's own, word for word).
//
// Checks nothing itself, and watches no event: the per-sink oracles it holds read the sinks'
// outside systems after the run (an oracle that needs the run's events must be added to the run's
// observers on its own).
#include <memory>
#include <utility>
#include <vector>

#include "oracles/oracle.h"

namespace eosim::oracles {

class EverySinkOracle final : public Oracle {
public:
    explicit EverySinkOracle(const char* name) : name_(name) {}
    void add(std::unique_ptr<Oracle> sink_oracle) {
        sink_oracles_.push_back(std::move(sink_oracle));
    }
    const char* name() const override { return name_; }
    Verdict verdict() const override;

private:
    const char* name_;
    std::vector<std::unique_ptr<Oracle>> sink_oracles_;
};

}  // namespace eosim::oracles
