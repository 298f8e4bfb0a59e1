// The oracle registry (oracles/oracle_registry.h): the built-ins registered once, in order; a name
// taken twice or an incomplete registration refused; and an oracle added with one registration is
// listed, checked by the loader where it does not apply, made by the run, and judged like a
// built-in -- no enum, no switch.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "oracles/oracle_registry.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/temp_dir.h"

namespace eosim::oracles {
namespace {

using nlohmann::json;

json kafka_job(const json& oracles) {
    return json{
        {"world", {{"task_managers", 1}, {"topics", {{{"name", "input"}, {"partitions", 1}}}}}},
        {"job",
         {{"vertices",
           {{{"id", "source"}, {"kind", "kafka_source"}, {"topic", "input"}},
            {{"id", "sink"},
             {"kind", "sink"},
             {"sink", "append"},
             {"inputs", {{{"from", "source"}}}}}}},
          {"checkpointing", {{"interval", "200ms"}}}}},
        {"input", {{{"topic", "input"}, {"records", 40}, {"keys", 4}, {"rate_per_second", 100}}}},
        {"oracles", oracles}};
}

scenarios::Scenario load_document(const json& document) {
    testing::TempDir dir;
    return scenarios::load_scenario(dir.write("s.json", document.dump()));
}

// Counts the records the sink shows and fails when it shows fewer than `at_least`; applies only to
// jobs with an append sink.
class RecordCountOracle final : public Oracle {
public:
    RecordCountOracle(SinkReader reader, size_t at_least)
        : reader_(std::move(reader)), at_least_(at_least) {}
    const char* name() const override { return "test_record_count"; }
    void job_finished(sim::Time) override { finished_ = true; }
    Verdict verdict() const override {
        const size_t shown = reader_().size();
        if (finished_ && shown >= at_least_) return {true, std::to_string(shown) + " records"};
        return {false, "only " + std::to_string(shown) + " records, expected at least " +
                           std::to_string(at_least_)};
    }

private:
    SinkReader reader_;
    size_t at_least_;
    bool finished_ = false;
};

OracleRegistration record_count_registration(size_t at_least, const std::string& name) {
    return {name, "the sink shows at least N records",
            [](const OracleJobFacts& facts) -> std::string {
                for (const engine::VertexSpec& v : facts.job.vertices) {
                    if (v.kind == engine::OperatorKind::sink && v.sink_kind == "append") return "";
                }
                return "a job with an append sink";
            },
            [at_least](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                return std::make_unique<RecordCountOracle>(run.judged_sinks.front().reader,
                                                           at_least);
            }};
}

}  // namespace

TEST_CASE("oracle registry: the built-ins, once each, in their listing order",
          "[oracle_registry]") {
    std::vector<std::string> names = OracleRegistry::global().names();
    names.resize(
        11);  // any registered after the built-ins (by another test in this process) follow them
    CHECK(names == std::vector<std::string>{"exactly_once_output", "at_least_once_output",
                                            "state_after_restore", "visibility", "liveness",
                                            "no_key_backwards", "mirror", "freshness", "storage",
                                            "verification_output", "window_output"});
    for (const std::string& name : names) {
        const OracleRegistration* kind = OracleRegistry::global().find(name);
        REQUIRE(kind != nullptr);
        CHECK(!kind->summary.empty());
    }
    CHECK(OracleRegistry::global().find("lively") == nullptr);
}

TEST_CASE("oracle registry: a taken name or an incomplete registration is refused",
          "[oracle_registry]") {
    OracleRegistry registry;
    registry.add(record_count_registration(1, "counted"));
    CHECK_THROWS_WITH(registry.add(record_count_registration(1, "counted")),
                      Catch::Contains("registered twice"));
    OracleRegistration no_make = record_count_registration(1, "no_make");
    no_make.make = nullptr;
    CHECK_THROWS_AS(registry.add(no_make), std::logic_error);
    CHECK(registry.names() == std::vector<std::string>{"counted"});
}

TEST_CASE(
    "oracle registry: one registration makes an oracle a scenario can list, the loader check and the run judge",
    "[oracle_registry]") {
    OracleRegistry::global().add(record_count_registration(40, "test_record_count"));
    OracleRegistry::global().add(record_count_registration(41, "test_record_count_too_many"));

    // Listed and run like a built-in: it passes on the job's 40 records...
    const scenarios::Scenario passing =
        load_document(kafka_job({"at_least_once_output", "test_record_count"}));
    CHECK(passing.oracles == std::vector<std::string>{"at_least_once_output", "test_record_count"});
    const scenarios::RunResult passed = scenarios::run_scenario(passing, scenarios::RunOptions{});
    REQUIRE(passed.verdicts.size() == 2);
    CHECK(passed.verdicts[1].oracle == "test_record_count");
    CHECK(passed.verdicts[1].passed);
    CHECK(passed.expectation_met);

    // ...and its negative control fires, named in the expectation a scenario can state.
    json failing = kafka_job({"test_record_count_too_many"});
    failing["expect"] = {{"violation", "test_record_count_too_many"}};
    const scenarios::RunResult failed =
        scenarios::run_scenario(load_document(failing), scenarios::RunOptions{});
    REQUIRE(failed.verdicts.size() == 1);
    CHECK_FALSE(failed.verdicts[0].passed);
    CHECK(failed.verdicts[0].message == "only 40 records, expected at least 41");
    CHECK(failed.expectation_met);

    // Where it does not apply, the loader says what it needs at its JSON path.
    json kafka_sink = kafka_job({"test_record_count"});
    kafka_sink["world"]["topics"].push_back({{"name", "out"}, {"partitions", 1}});
    kafka_sink["job"]["vertices"][1] = {{"id", "sink"},
                                        {"kind", "sink"},
                                        {"sink", "kafka"},
                                        {"options", {{"topic", "out"}}},
                                        {"inputs", {{{"from", "source"}}}}};
    try {
        load_document(kafka_sink);
        FAIL("loaded");
    } catch (const scenarios::ScenarioError& e) {
        CHECK(e.json_path() == "/oracles/0");
        CHECK(std::string(e.what()).find(
                  "oracle \"test_record_count\" needs a job with an append sink") !=
              std::string::npos);
    }
}

}  // namespace eosim::oracles
