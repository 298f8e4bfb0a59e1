#include "oracles/at_least_once_output_oracle.h"

#include "oracles/output_comparison.h"

namespace eosim::oracles {

Verdict AtLeastOnceOutputOracle::verdict() const {
    const auto c = OutputComparison::of(model_.expected_output(sink_vertex_), reader_());
    Verdict v;
    v.passed = c.missing_records == 0;
    v.message = "sink '" + sink_vertex_ + "': " + std::to_string(c.missing_records) + " missing, " +
                std::to_string(c.duplicate_records) + " duplicates (allowed)";
    if (c.first_missing) v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
    return v;
}

}  // namespace eosim::oracles
