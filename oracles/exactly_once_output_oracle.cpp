#include "oracles/exactly_once_output_oracle.h"

#include "engine/connectors/sink_registry.h"
#include "oracles/committed_prefix_comparison.h"
#include "oracles/every_sink_oracle.h"
#include "oracles/oracle_registry.h"
#include "oracles/output_comparison.h"

namespace eosim::oracles {

Verdict ExactlyOnceOutputOracle::verdict() const {
    if (failed_) {
        const bool appended = shape_ == engine::SinkOutputShape::appended;
        const auto c =
            appended
                ? CommittedPrefixComparison::appended(model_, sink_vertex_, *failed_, reader_())
                : CommittedPrefixComparison::table(model_, sink_vertex_, *failed_, reader_(),
                                                   shape_ == engine::SinkOutputShape::key_counts);
        return Verdict{c.missing == 0 && c.beyond == 0,
                       c.describe(sink_vertex_, *failed_, appended ? "records" : "rows")};
    }
    switch (shape_) {
        case engine::SinkOutputShape::appended: break;
        case engine::SinkOutputShape::keyed_table:
            return table_verdict(model_.final_table(sink_vertex_), "keyed table");
        case engine::SinkOutputShape::key_counts:
            return table_verdict(key_counts(model_.expected_output(sink_vertex_)), "key counts");
    }
    return appended_verdict();
}

Verdict ExactlyOnceOutputOracle::appended_verdict() const {
    const auto c = OutputComparison::of(model_.expected_output(sink_vertex_), reader_());
    Verdict v;
    v.message = "sink '" + sink_vertex_ + "': " + std::to_string(c.actual_records) + " " + units_ +
                ", " + std::to_string(c.expected_records) + " expected";
    if (c.missing_records == 0 && c.duplicate_records == 0) return v;
    if (!run_cut_.empty() && c.duplicate_records == 0) {
        v.message += "; " + std::to_string(c.missing_records) +
                     " not (yet) committed: not judged, the run was cut (" + run_cut_ + ")";
        return v;
    }
    v.passed = false;
    v.message += "; " + std::to_string(c.missing_records) + " missing, " +
                 std::to_string(c.duplicate_records) + " duplicated";
    if (c.first_missing)
        v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
    if (c.first_duplicate)
        v.message += "; first duplicated " + OutputComparison::describe(*c.first_duplicate);
    return v;
}

Verdict ExactlyOnceOutputOracle::table_verdict(const std::vector<engine::Record>& expected,
                                               const char* shape) const {
    const TableComparison c = TableComparison::of(expected, reader_());
    const auto missing = static_cast<int64_t>(c.missing.size());
    const auto wrong = static_cast<int64_t>(c.wrong.size());
    const auto extra = static_cast<int64_t>(c.extra.size());
    Verdict v;
    v.message = "sink '" + sink_vertex_ + "' (" + shape + "): " + std::to_string(expected.size()) +
                " keys expected";
    if (c.equal()) return v;
    if (!run_cut_.empty() && extra == 0 && c.repeated_keys == 0) {
        v.message += "; " + std::to_string(missing) + " missing, " + std::to_string(wrong) +
                     " not caught up: not judged, the run was cut (" + run_cut_ + ")";
        return v;
    }
    // The first offence: the smallest key missing or with a wrong value, else the first extra key.
    std::string first;
    const bool missing_first =
        !c.missing.empty() &&
        (c.wrong.empty() || c.missing.front().record.key < c.wrong.front().first.key);
    if (missing_first) {
        first = "key " + std::to_string(c.missing.front().record.key) +
                " missing (expected value " + std::to_string(c.missing.front().record.value) + ")";
    } else if (!c.wrong.empty()) {
        first = "key " + std::to_string(c.wrong.front().first.key) + " holds " +
                std::to_string(c.wrong.front().second) + ", expected " +
                std::to_string(c.wrong.front().first.value);
    } else if (!c.extra.empty()) {
        first = "key " + std::to_string(c.extra.front().key) + " present (value " +
                std::to_string(c.extra.front().value) + "), the model has no such key";
    }
    v.passed = false;
    v.message += "; " + std::to_string(missing) + " missing, " + std::to_string(wrong) +
                 " with a wrong value, " + std::to_string(extra) + " extra, " +
                 std::to_string(c.repeated_keys) + " shown twice; first: " + first;
    return v;
}

OracleRegistration exactly_once_output_registration() {
    return {
        "exactly_once_output",
        "every record of every sink exactly once: the committed output equals the reference model's",
        [](const OracleJobFacts& facts) { return failed_job_needs(facts); },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto every = std::make_unique<EverySinkOracle>("exactly_once_output");
            for (const JudgedSink& judged : run.judged_sinks) {
                const engine::SinkConfig& config = *judged.vertex->sink;
                auto sink = std::make_unique<ExactlyOnceOutputOracle>(
                    run.model, judged.vertex->id, config.output_shape(), judged.reader,
                    config.output_units());
                ExactlyOnceOutputOracle* oracle = sink.get();
                run.hooks.on_cut([oracle](const std::string& why) { oracle->set_run_cut(why); });
                run.hooks.on_job_failed(
                    [oracle](const CommittedPrefix& prefix) { oracle->set_job_failed(prefix); });
                every->add(std::move(sink));
            }
            return every;
        }};
}

}  // namespace eosim::oracles
