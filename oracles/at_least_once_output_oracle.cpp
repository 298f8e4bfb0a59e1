#include "oracles/at_least_once_output_oracle.h"

#include "oracles/every_sink_oracle.h"
#include "oracles/oracle_registry.h"
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

OracleRegistration at_least_once_output_registration() {
    return {"at_least_once_output", "no record of any sink lost: the committed output holds the reference model's",
            [](const OracleJobFacts&) { return std::string(); },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                auto every = std::make_unique<EverySinkOracle>("at_least_once_output");
                for (const JudgedSink& judged : run.judged_sinks) {
                    every->add(std::make_unique<AtLeastOnceOutputOracle>(run.model, judged.vertex->id, judged.reader));
                }
                return every;
            }};
}

}  // namespace eosim::oracles
