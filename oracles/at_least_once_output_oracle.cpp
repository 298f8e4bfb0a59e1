#include "oracles/at_least_once_output_oracle.h"

#include "oracles/committed_prefix_comparison.h"
#include "oracles/every_sink_oracle.h"
#include "oracles/oracle_registry.h"
#include "oracles/output_comparison.h"

namespace eosim::oracles {

Verdict AtLeastOnceOutputOracle::verdict() const {
    if (failed_) {
        const auto c =
            CommittedPrefixComparison::appended(model_, sink_vertex_, *failed_, reader_());
        std::string text = "sink '" + sink_vertex_ + "': " + std::to_string(c.missing) +
                           " missing of " + std::to_string(c.lower_expected) + " expected by " +
                           failed_->describe() +
                           " (the input it never read is not judged), duplicates allowed";
        if (c.missing > 0) text += "; " + c.first;
        return Verdict{c.missing == 0, text};
    }
    const auto c = OutputComparison::of(model_.expected_output(sink_vertex_), reader_());
    Verdict v;
    v.passed = c.missing_records == 0;
    v.message = "sink '" + sink_vertex_ + "': " + std::to_string(c.missing_records) + " missing, " +
                std::to_string(c.duplicate_records) + " duplicates (allowed)";
    if (c.first_missing)
        v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
    return v;
}

OracleRegistration at_least_once_output_registration() {
    return {"at_least_once_output",
            "no record of any sink lost: the committed output holds the reference model's",
            [](const OracleJobFacts& facts) { return failed_job_needs(facts); },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                auto every = std::make_unique<EverySinkOracle>("at_least_once_output");
                for (const JudgedSink& judged : run.judged_sinks) {
                    auto sink = std::make_unique<AtLeastOnceOutputOracle>(
                        run.model, judged.vertex->id, judged.reader);
                    AtLeastOnceOutputOracle* oracle = sink.get();
                    run.hooks.on_job_failed([oracle](const CommittedPrefix& prefix) {
                        oracle->set_job_failed(prefix);
                    });
                    every->add(std::move(sink));
                }
                return every;
            }};
}

}  // namespace eosim::oracles
