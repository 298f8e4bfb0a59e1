#include "oracles/every_sink_oracle.h"

#include <string>

namespace eosim::oracles {

Verdict EverySinkOracle::verdict() const {
    Verdict all;
    std::string passed;
    std::string fired;
    for (const auto& oracle : sink_oracles_) {
        const Verdict v = oracle->verdict();
        std::string& into = v.passed ? passed : fired;
        into += (into.empty() ? "" : "; ") + v.message;
        all.passed = all.passed && v.passed;
    }
    all.message = all.passed ? passed : fired;
    return all;
}

}  // namespace eosim::oracles
