#include "oracles/exactly_once_output_oracle.h"

#include <map>

#include "engine/connectors/sink_registry.h"
#include "oracles/committed_prefix_comparison.h"
#include "oracles/every_sink_oracle.h"
#include "oracles/oracle_registry.h"
#include "oracles/output_comparison.h"

namespace eosim::oracles {

Verdict ExactlyOnceOutputOracle::verdict() const {
    if (failed_) {
        const bool appended = shape_ == engine::SinkOutputShape::appended;
        const auto c = appended ? CommittedPrefixComparison::appended(model_, sink_vertex_, *failed_, reader_())
                                : CommittedPrefixComparison::table(model_, sink_vertex_, *failed_, reader_(),
                                                                   shape_ == engine::SinkOutputShape::key_counts);
        return Verdict{c.missing == 0 && c.beyond == 0, c.describe(sink_vertex_, *failed_, appended ? "records" : "rows")};
    }
    switch (shape_) {
        case engine::SinkOutputShape::appended: break;
        case engine::SinkOutputShape::keyed_table: return table_verdict(model_.final_table(sink_vertex_), "keyed table");
        case engine::SinkOutputShape::key_counts: return table_verdict(model_key_counts(), "key counts");
    }
    return appended_verdict();
}

std::vector<engine::Record> ExactlyOnceOutputOracle::model_key_counts() const {
    std::map<int64_t, int64_t> counts;
    const RecordMultiset& output = model_.expected_output(sink_vertex_);
    for (size_t i = 0; i < output.size(); ++i) ++counts[output[i].key];
    std::vector<engine::Record> table;
    for (const auto& [key, count] : counts) table.push_back(engine::Record{key, count});
    return table;
}

Verdict ExactlyOnceOutputOracle::appended_verdict() const {
    const auto c = OutputComparison::of(model_.expected_output(sink_vertex_), reader_());
    Verdict v;
    v.message = "sink '" + sink_vertex_ + "': " + std::to_string(c.actual_records) + " committed records, " +
                std::to_string(c.expected_records) + " expected";
    if (c.missing_records == 0 && c.duplicate_records == 0) return v;
    if (!run_cut_.empty() && c.duplicate_records == 0) {
        v.message += "; " + std::to_string(c.missing_records) + " not (yet) committed: not judged, the run was cut (" +
                     run_cut_ + ")";
        return v;
    }
    v.passed = false;
    v.message += "; " + std::to_string(c.missing_records) + " missing, " + std::to_string(c.duplicate_records) + " duplicated";
    if (c.first_missing) v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
    if (c.first_duplicate) v.message += "; first duplicated " + OutputComparison::describe(*c.first_duplicate);
    return v;
}

Verdict ExactlyOnceOutputOracle::table_verdict(const std::vector<engine::Record>& expected, const char* shape) const {
    std::map<int64_t, int64_t> actual;
    int64_t repeated_keys = 0;  // a table shows a key once; a reader that returns it twice is wrong too
    const RecordMultiset shown = reader_();
    for (size_t i = 0; i < shown.size(); ++i) {
        const engine::Record r = shown[i];
        repeated_keys += actual.emplace(r.key, r.value).second ? 0 : 1;
    }
    int64_t missing = 0, wrong = 0;
    std::string first;
    auto note = [&first](const std::string& what) {
        if (first.empty()) first = what;
    };
    for (const engine::Record& e : expected) {
        auto it = actual.find(e.key);
        if (it == actual.end()) {
            ++missing;
            note("key " + std::to_string(e.key) + " missing (expected value " + std::to_string(e.value) + ")");
        } else {
            if (it->second != e.value) {
                ++wrong;
                note("key " + std::to_string(e.key) + " holds " + std::to_string(it->second) + ", expected " +
                     std::to_string(e.value));
            }
            actual.erase(it);
        }
    }
    const auto extra = static_cast<int64_t>(actual.size());
    if (extra > 0) note("key " + std::to_string(actual.begin()->first) + " present (value " +
                        std::to_string(actual.begin()->second) + "), the model has no such key");
    Verdict v;
    v.message = "sink '" + sink_vertex_ + "' (" + shape + "): " + std::to_string(expected.size()) + " keys expected";
    if (missing == 0 && wrong == 0 && extra == 0 && repeated_keys == 0) return v;
    if (!run_cut_.empty() && extra == 0 && repeated_keys == 0) {
        v.message += "; " + std::to_string(missing) + " missing, " + std::to_string(wrong) +
                     " not caught up: not judged, the run was cut (" + run_cut_ + ")";
        return v;
    }
    v.passed = false;
    v.message += "; " + std::to_string(missing) + " missing, " + std::to_string(wrong) + " with a wrong value, " +
                 std::to_string(extra) + " extra, " + std::to_string(repeated_keys) + " shown twice; first: " + first;
    return v;
}

OracleRegistration exactly_once_output_registration() {
    return {"exactly_once_output", "every record of every sink exactly once: the committed output equals the reference model's",
            [](const OracleJobFacts& facts) { return failed_job_needs(facts); },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                auto every = std::make_unique<EverySinkOracle>("exactly_once_output");
                for (const JudgedSink& judged : run.judged_sinks) {
                    auto sink = std::make_unique<ExactlyOnceOutputOracle>(run.model, judged.vertex->id,
                                                                          judged.vertex->sink->output_shape(), judged.reader);
                    ExactlyOnceOutputOracle* oracle = sink.get();
                    run.hooks.on_cut([oracle](const std::string& why) { oracle->set_run_cut(why); });
                    run.hooks.on_job_failed([oracle](const CommittedPrefix& prefix) { oracle->set_job_failed(prefix); });
                    every->add(std::move(sink));
                }
                return every;
            }};
}

}  // namespace eosim::oracles
