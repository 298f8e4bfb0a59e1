// VerificationOutputOracle (oracles/verification_output_oracle.h) over a tiny hand-computed input:
// a throw-away topic holding exactly the model's output of the verification job's range passes;
// a deliberately broken reader (a record duplicated, a record lost, output past the job's own
// savepoint) fires it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "oracles/verification_output_oracle.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;

// source -> count (uid "c") -> sink (uid "out"), parallelism 1.
engine::JobSpec verification_job() {
    engine::JobSpec job = with_parallelism(count_job("c", "out"), 1);
    job.name = "count-v2-verification";
    return job;
}

// Partition 0: (1,10) (2,3) | (1,5) || (2,6); "|" the savepoint the verification job starts from,
// "||" its own final savepoint. From the savepoint on it writes (1,2) (key 1's second record).
ModelInput verification_input() { return ModelInput{{"in", {{{1, 10}, {2, 3}, {1, 5}, {2, 6}}}}}; }
const SourceOffsets kFrom{{{"in", 0}, 2}};
const SourceOffsets kTo{{{"in", 0}, 3}};

Verdict judge_verification(const std::vector<Record>& topic) {
    const engine::JobSpec job = verification_job();
    const ReferenceModel model(job, verification_input());
    VerificationOutputOracle oracle(model);
    oracle.verification_ran(job, kFrom, kTo, "out", [topic] { return RecordMultiset(topic); });
    return oracle.verdict();
}

TEST_CASE("verification output: the model's output of the job's own range passes",
          "[oracle][upgrade]") {
    const Verdict v = judge_verification({{1, 2}});
    INFO(v.message);
    CHECK(v.passed);
}

TEST_CASE("verification output: a duplicated, a lost or a late record fires (negative controls)",
          "[oracle][upgrade]") {
    CHECK_FALSE(judge_verification({{1, 2}, {1, 2}}).passed);  // duplicated
    CHECK_FALSE(judge_verification({}).passed);                // lost
    CHECK_FALSE(judge_verification({{1, 2}, {2, 2}}).passed);  // past its own savepoint
    CHECK_FALSE(
        judge_verification({{1, 1}}).passed);  // state not restored: the count started again
    CHECK(judge_verification({{1, 1}}).message.find("first missing") != std::string::npos);
}

TEST_CASE("verification output: no verification job ran is no violation", "[oracle][upgrade]") {
    const engine::JobSpec job = verification_job();
    const ReferenceModel model(job, verification_input());
    const VerificationOutputOracle oracle(model);
    CHECK(oracle.verdict().passed);
}

}  // namespace
}  // namespace eosim::oracles
