#include "oracles/verification_output_oracle.h"

#include <set>

#include "engine/connectors/kafka_sink.h"
#include "oracles/oracle_registry.h"
#include "oracles/output_comparison.h"

namespace eosim::oracles {

void VerificationOutputOracle::verification_ran(const engine::JobSpec& job,
                                                engine::SourceOffsets from,
                                                std::optional<engine::SourceOffsets> to,
                                                std::string sink_uid, SinkReader reader) {
    ran_.push_back(
        Ran{&job, std::move(from), std::move(to), std::move(sink_uid), std::move(reader)});
}

Verdict VerificationOutputOracle::verdict() const {
    Verdict v;
    if (ran_.empty()) {
        v.message = "no verification job ran";
        return v;
    }
    int64_t records = 0;
    for (const Ran& ran : ran_) {
        const RecordMultiset expected =
            model_.output_between(*ran.job, ran.from, ran.to ? &*ran.to : nullptr, ran.sink_uid);
        const auto c = OutputComparison::of(expected, ran.reader());
        records += c.actual_records;
        if (c.missing_records == 0 && c.duplicate_records == 0) continue;
        v.passed = false;
        v.message = "verification job '" + ran.job->name + "', sink '" + ran.sink_uid +
                    "': " + std::to_string(c.actual_records) + " committed records, " +
                    std::to_string(c.expected_records) + " expected; " +
                    std::to_string(c.missing_records) + " missing, " +
                    std::to_string(c.duplicate_records) + " duplicated";
        if (c.first_missing)
            v.message += "; first missing " + OutputComparison::describe(*c.first_missing);
        if (c.first_duplicate)
            v.message += "; first duplicated " + OutputComparison::describe(*c.first_duplicate);
        return v;
    }
    std::set<const engine::JobSpec*> jobs;
    for (const Ran& ran : ran_) jobs.insert(ran.job);
    v.message = std::to_string(jobs.size()) + " verification job(s), " +
                std::to_string(ran_.size()) + " throw-away sink(s): " + std::to_string(records) +
                " committed records, each sink's as the model expects";
    return v;
}

OracleRegistration verification_output_registration() {
    return {"verification_output",
            "a verification job's throw-away output equals the reference model's over what it read",
            [](const OracleJobFacts& facts) -> std::string {
                return facts.has_verification_deployment
                           ? ""
                           : "a deployment with \"verification\": true";
            },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                auto oracle = std::make_unique<VerificationOutputOracle>(run.model);
                VerificationOutputOracle* verification = oracle.get();
                auto content = run.committed_content;
                run.hooks.on_verification([verification, content](const VerificationRun& ran) {
                    for (const engine::VertexSpec& v : ran.job->vertices) {
                        // every Kafka sink of the job: each writes a throw-away topic
                        if (dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get()) == nullptr)
                            continue;
                        verification->verification_ran(*ran.job, ran.from, ran.to, v.uid_or_id(),
                                                       [content, &v] { return content(v); });
                    }
                });
                return oracle;
            }};
}

}  // namespace eosim::oracles
