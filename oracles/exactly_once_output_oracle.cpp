#include "oracles/exactly_once_output_oracle.h"

#include "oracles/output_comparison.h"

namespace eosim::oracles {

Verdict ExactlyOnceOutputOracle::verdict() const {
    const auto c = OutputComparison::of(model_.sink_output(sink_vertex_), reader_());
    Verdict v;
    v.message = "sink '" + sink_vertex_ + "': " + std::to_string(c.actual_records) + " committed records, " +
                std::to_string(c.expected_records) + " expected";
    if (c.missing_records == 0 && c.duplicate_records == 0) return v;
    v.passed = false;
    v.message += "; " + std::to_string(c.missing_records) + " missing, " + std::to_string(c.duplicate_records) + " duplicated";
    if (c.first_missing) v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
    if (c.first_duplicate) v.message += "; first duplicated " + OutputComparison::describe(*c.first_duplicate);
    return v;
}

}  // namespace eosim::oracles
