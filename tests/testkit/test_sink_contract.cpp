// The contract-level property (testkit/sink_contract.h) on the built-in sinks: Kafka exactly-once
// passes; its at-least-once mode is caught (duplicates, or uncommitted records visible), and so are
// the append sink, and an exactly-once sink that forgets its restored state, or keeps only its own
// subtask's on a scale-in (negative controls that must fire); read as a keyed table (a compacted
// topic) exactly-once passes and at-least-once upserts are caught going backwards; the example file
// sink that commits at pre-commit is caught in tests/testkit/test_file_sink_example.cpp.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "engine/connectors/kafka_sink.h"
#include "testkit/sink_contract.h"

namespace eosim::testkit {
namespace {

ContractOptions kafka(const std::string& guarantee, int cases) {
    ContractOptions o;
    o.sink = "kafka";
    o.options = {{"topic", "output"}, {"guarantee", guarantee}};
    o.cases = cases;
    return o;
}

TEST_CASE("sink contract: the Kafka exactly-once sink passes 10000 cases", "[testkit][heavy]") {
    const auto result = check_sink_contract(kafka("exactly_once", 10000));
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.cases == 10000);
}

TEST_CASE("sink contract: at-least-once Kafka is caught with duplicates", "[testkit]") {
    auto options = kafka("at_least_once", 300);
    options.visibility = Visibility::eventually;  // only duplicates and losses count
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("TWICE") != std::string::npos);
    CHECK(result.report.find("What happened") != std::string::npos);
}

TEST_CASE("sink contract: at-least-once Kafka is caught showing uncommitted records", "[testkit]") {
    const auto result = check_sink_contract(kafka("at_least_once", 300));
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("no completed checkpoint covers it") != std::string::npos);
}

// The Kafka exactly-once sink, altered for negative controls and their twins (each field a
// change, none by default):
// - `keep`: which restored states it is given (by its own subtask index). Forgetful: none, so what
//   a completed checkpoint pre-committed but whose notification never arrived is never committed.
//   Own state only: what the engine gave a sink before it handed the removed subtasks' states on at
//   a scale-in.
// - `subtask_blind`: told that every subtask is subtask 0, so it names its transactional ids
//   without the subtask index ("sink-0-<checkpoint>" on every subtask): modelled on FLINK-7978
//   (apache/flink#4955, "transactional ids to use and to abort could clash between subtasks"). Two
//   subtasks then take the same id: the later init_transactions fences the earlier producer and
//   aborts its open transaction, and each subtask's lingering-transaction abort at open hits the
//   other's. One subtask never shows it.
// - `timers_stop_at_close`: its commit retries stop when it is closed (as Flink's committer stops
//   with its task), so a stopped job's subtasks no longer commit what they pre-committed: only the
//   restored job can.
struct KafkaAlteration {
    std::function<bool(int32_t subtask, const engine::RestoredSinkState&)> keep;
    bool subtask_blind = false;
    bool timers_stop_at_close = false;
};

class AlteredContext final : public engine::SinkContext {
public:
    AlteredContext(engine::SinkContext& inner, bool subtask_blind)
        : inner_(inner), subtask_blind_(subtask_blind) {}
    sim::World& world() override { return inner_.world(); }
    sim::NodeId node() const override { return inner_.node(); }
    int32_t subtask() const override { return subtask_blind_ ? 0 : inner_.subtask(); }
    int32_t parallelism() const override { return inner_.parallelism(); }
    int64_t attempt() const override { return inner_.attempt(); }
    engine::RunObserver& observer() override { return inner_.observer(); }
    void after(sim::Duration delay, std::function<void()> fn) override {
        inner_.after(delay, [closed = closed_, fn = std::move(fn)] {
            if (!*closed) fn();
        });
    }
    void fail(const std::string& reason) override { inner_.fail(reason); }
    void stop_timers() { *closed_ = true; }

private:
    engine::SinkContext& inner_;
    bool subtask_blind_;
    std::shared_ptr<bool> closed_ =
        std::make_shared<bool>(false);  // outlives the sink in its timers
};

class AlteredSink final : public engine::Sink {
public:
    AlteredSink(engine::SinkContext& context, const engine::SinkConfig& inner,
                const engine::OutsideSystems& systems, const engine::RuntimeConfig& runtime,
                const KafkaAlteration& alteration)
        : subtask_(context.subtask()),
          alteration_(alteration),
          context_(context, alteration.subtask_blind),
          inner_(inner.make(context_, systems, runtime)) {}
    bool open(int64_t id, const std::vector<engine::RestoredSinkState>& restored) override {
        if (!alteration_.keep) return inner_->open(id, restored);
        std::vector<engine::RestoredSinkState> kept;
        for (const auto& state : restored) {
            if (alteration_.keep(subtask_, state)) kept.push_back(state);
        }
        return inner_->open(id, kept);
    }
    void write(const engine::RecordBatch& records) override { inner_->write(records); }
    bool pre_commit(int64_t id, std::string* state, std::string* error) override {
        return inner_->pre_commit(id, state, error);
    }
    void checkpoint_complete(int64_t id) override { inner_->checkpoint_complete(id); }
    bool settled() const override { return inner_->settled(); }
    void close() override {
        inner_->close();
        if (alteration_.timers_stop_at_close) context_.stop_timers();
    }

private:
    int32_t subtask_;
    KafkaAlteration alteration_;
    AlteredContext context_;  // outlives inner_ (declared first)
    std::unique_ptr<engine::Sink> inner_;
};

class AlteredKafkaConfig final : public engine::SinkConfig {
public:
    explicit AlteredKafkaConfig(KafkaAlteration alteration) : alteration_(std::move(alteration)) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig& runtime) const override {
        return std::make_unique<AlteredSink>(context, kafka_, systems, runtime, alteration_);
    }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        return kafka_.read_output(systems);
    }
    std::string kafka_topic() const override { return kafka_.kafka_topic(); }
    std::vector<std::string_view> announced_points() const override {
        return kafka_.announced_points();
    }

private:
    KafkaAlteration alteration_;
    engine::KafkaSinkConfig kafka_{
        engine::KafkaSinkOptions{"output", engine::DeliveryGuarantee::exactly_once, "sink"}};
};

std::shared_ptr<engine::SinkConfig> forgetful_kafka() {
    return std::make_shared<AlteredKafkaConfig>(
        KafkaAlteration{[](int32_t, const engine::RestoredSinkState&) { return false; }});
}

TEST_CASE("sink contract: a sink that forgets its restored state is caught losing data",
          "[testkit]") {
    ContractOptions o;
    o.config = forgetful_kafka();
    o.cases = 1000;
    const auto result = check_sink_contract(o);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("MISSING") != std::string::npos);
}

TEST_CASE(
    "sink contract: transactional ids without the subtask index are caught by parallel subtasks only",
    "[testkit]") {
    ContractOptions o;
    o.config =
        std::make_shared<AlteredKafkaConfig>(KafkaAlteration{{}, true});  // FLINK-7978, above
    const auto caught = check_sink_contract(o);  // the default cases: 1..3 subtasks
    INFO(caught.report);
    REQUIRE_FALSE(caught.passed);
    // (every blind subtask aborts the others' "own" transactions at open: shrunk to 2 or 3
    // subtasks)
    CHECK((caught.report.find("with 2 subtask(s)") != std::string::npos ||
           caught.report.find("with 3 subtask(s)") != std::string::npos));
    CHECK(caught.report.find("incarnation 1, subtask 0 cannot pre-commit") !=
          std::string::npos);  // in the user's words, by subtask
    CHECK(caught.report.find("fenced") != std::string::npos);
    o.parallelism = 1;
    o.cases = 1000;
    const auto alone = check_sink_contract(o);
    INFO(alone.report);
    CHECK(alone.passed);
}

TEST_CASE(
    "sink contract: parallel subtasks, savepoint restores and rescales are exercised by default",
    "[testkit]") {
    const auto result = check_sink_contract(kafka("exactly_once", 300));
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.faults_drawn.at("stop_with_savepoint") > 0);
    CHECK(result.report.find("incarnations with parallel subtasks") != std::string::npos);
    CHECK(result.report.find("restored at another parallelism") != std::string::npos);
}

// Scaling in from a savepoint whose commits failed at the stop: the remaining subtasks get the
// removed subtasks' states (engine::restoring_subtask) and commit their transactions. Before the
// engine redistributed sink state, this lost records (FLINK-23854's territory). The stopped
// subtasks' commit retries (their timers fire on, as a zombie's) would commit a dropped state's
// transactions anyway, so the negative control keeps only each subtask's own state, as the engine
// did then, with retries that stop at close; its twin, the same retries and every state, passes.
TEST_CASE(
    "sink contract: scaling in hands the removed subtasks' sink state on, and nothing is lost",
    "[testkit][heavy]") {
    auto o = kafka("exactly_once", 3000);
    o.faults = {{"kafka_commit_errors", 1}, {"stop_with_savepoint", 1}};
    const auto result = check_sink_contract(o);
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.report.find("restored at a smaller parallelism (scale-in)") != std::string::npos);

    o.config = std::make_shared<AlteredKafkaConfig>(KafkaAlteration{{}, false, true});
    const auto twin = check_sink_contract(o);
    INFO(twin.report);
    CHECK(twin.passed);

    o.config = std::make_shared<AlteredKafkaConfig>(
        KafkaAlteration{[](int32_t subtask, const engine::RestoredSinkState& state) {
                            return state.subtask == subtask;
                        },
                        false, true});
    const auto own_only = check_sink_contract(o);
    INFO(own_only.report);
    REQUIRE_FALSE(own_only.passed);
    CHECK(own_only.report.find("RESCALED from") != std::string::npos);
    CHECK(own_only.report.find("MISSING") != std::string::npos);
}

// The Kafka sink read as a compacted topic (a keyed table: the last value per key), the way an
// upsert sink's output is read.
class CompactedKafkaConfig final : public engine::SinkConfig {
public:
    explicit CompactedKafkaConfig(engine::DeliveryGuarantee guarantee)
        : kafka_(engine::KafkaSinkOptions{"output", guarantee, "sink"}) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig& runtime) const override {
        return kafka_.make(context, systems, runtime);
    }
    engine::SinkOutputShape output_shape() const override {
        return engine::SinkOutputShape::keyed_table;
    }
    std::vector<std::string_view> announced_points() const override {
        return kafka_.announced_points();
    }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        std::map<int64_t, int64_t>
            table;  // per partition in offset order; a key lives in one partition
        for (const auto& r : kafka_.read_output(systems)) table[r.key] = r.value;
        std::vector<engine::Record> out;
        for (const auto& [key, value] : table) out.push_back(engine::Record{key, value});
        return out;
    }

private:
    engine::KafkaSinkConfig kafka_;
};

TEST_CASE("sink contract: keyed table: exactly-once Kafka read as a compacted topic passes",
          "[testkit]") {
    ContractOptions o;
    o.config = std::make_shared<CompactedKafkaConfig>(engine::DeliveryGuarantee::exactly_once);
    o.cases = 1000;
    const auto result = check_sink_contract(o);
    INFO(result.report);
    CHECK(result.passed);
}

TEST_CASE("sink contract: keyed table: at-least-once upserts are caught going backwards on replay",
          "[testkit]") {
    ContractOptions o;
    o.config = std::make_shared<CompactedKafkaConfig>(engine::DeliveryGuarantee::at_least_once);
    o.visibility = Visibility::eventually;
    o.cases = 1000;
    const auto result = check_sink_contract(o);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("BACKWARDS") != std::string::npos);
}

TEST_CASE("sink contract: the append sink (no protection) is caught", "[testkit]") {
    ContractOptions o;
    o.sink = "append";
    o.visibility = Visibility::eventually;
    o.cases = 300;
    const auto result = check_sink_contract(o);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("TWICE") != std::string::npos);
}

TEST_CASE("sink contract: the same seed finds the same counterexample", "[testkit]") {
    auto options = kafka("at_least_once", 300);
    options.visibility = Visibility::eventually;
    const auto a = check_sink_contract(options);
    const auto b = check_sink_contract(options);
    REQUIRE_FALSE(a.passed);
    CHECK(a.report == b.report);
}

TEST_CASE(
    "sink contract: an at-least-once sink is testable: Kafka at-least-once keeps its guarantee",
    "[testkit]") {
    auto options = kafka("at_least_once", 1000);
    options.guarantee =
        Guarantee::at_least_once;  // nothing lost; duplicates and early visibility allowed
    CHECK(contract_checks(options, engine::SinkOutputShape::appended) ==
          std::vector<std::string>{"at_least_once_output"});
    const auto result = check_sink_contract(options);
    INFO(result.report);
    CHECK(result.passed);
}

TEST_CASE(
    "sink contract: a sink read as key counts is refused at the contract level, with the reason",
    "[testkit]") {
    ContractOptions o;
    o.sink = "key_values";
    o.options = {{"event_id", "source_offset"}};
    CHECK_THROWS_WITH(
        contract_checks(o, engine::SinkOutputShape::key_counts),
        Catch::Contains(
            "the contract level, whose commands carry no source offsets, does not judge it"));
}

TEST_CASE("sink contract: the forgetful sink loses data under the at-least-once checks too",
          "[testkit]") {
    ContractOptions o;
    o.config = forgetful_kafka();
    o.guarantee = Guarantee::at_least_once;
    o.cases = 1000;
    const auto result = check_sink_contract(o);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("MISSING") != std::string::npos);
}

TEST_CASE("sink contract: the Kafka sink's commit-error paths are drawn and reported",
          "[testkit]") {
    auto options = kafka("exactly_once", 300);
    options.faults = {{"kafka_commit_errors", 2},
                      {"kafka_commit_outcome_unknown", 2},
                      {"crash", 1},
                      {"notification_lost", 1}};
    const auto result = check_sink_contract(options);
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.faults_drawn.at("kafka_commit_errors") > 0);
    CHECK(result.faults_drawn.at("kafka_commit_outcome_unknown") > 0);
    CHECK_FALSE(result.faults_drawn.contains("zombie"));  // not chosen: never drawn
    CHECK(result.report.find("kafka: commits/aborts answered with a retriable error") !=
          std::string::npos);
    CHECK(result.points_announced.at("sink.precommitted") > 0);
}

TEST_CASE("sink contract: a requested fault kind that is never drawn fails the check",
          "[testkit]") {
    auto options = kafka("exactly_once", 1);
    options.max_size = 0;  // one case without commands: nothing is drawn
    options.faults = {{"crash", 1}};
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("fault kind crash was never drawn") != std::string::npos);
    options.require_requested = false;
    CHECK(check_sink_contract(options).passed);
}

TEST_CASE(
    "sink contract: a point the sink does not declare is refused, crashes aim at those it does",
    "[testkit]") {
    auto options = kafka("exactly_once", 100);
    options.points = {"sink.committed",
                      "sink.flushed"};  // the Kafka sink declares the first, not the second
    CHECK_THROWS_WITH(check_sink_contract(options),
                      Catch::Contains("the sink does not declare sink.flushed"));
    // A declared point the sink never announces: tests/testkit/test_announced_points.cpp.
    options.points = {"sink.committed"};
    const auto result = check_sink_contract(options);
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.faults_drawn.at("crash_at_point") > 0);
}

TEST_CASE("sink contract: fault kinds that do not apply, unknown checks and kinds are refused",
          "[testkit]") {
    auto options = kafka("exactly_once", 1);
    options.faults = {{"bulk_partial_failure", 1}};  // the Kafka sink uses no document store
    CHECK_THROWS_WITH(check_sink_contract(options), Catch::Contains("does not apply"));
    options.faults = {{"meteor", 1}};
    CHECK_THROWS_WITH(check_sink_contract(options), Catch::Contains("unknown fault kind"));
    options.faults.clear();
    options.oracles = {"no_key_backwards"};
    CHECK_THROWS_WITH(check_sink_contract(options), Catch::Contains("keyed table"));
    options.oracles = {"liveness"};  // a job-level oracle only
    CHECK_THROWS_WITH(check_sink_contract(options), Catch::Contains("not a contract-level check"));
}

TEST_CASE(
    "sink contract: the report names no C++ type and gives the replay line with the user's program",
    "[testkit]") {
    auto options = kafka("at_least_once", 300);
    options.program = "./my_sink_tests";
    const auto result = check_sink_contract(options);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("std::") == std::string::npos);
    CHECK(result.report.find("shared_ptr") == std::string::npos);
    CHECK(result.report.find(".cpp") == std::string::npos);  // no source or build-tree paths
    CHECK(result.report.find("RC_FAIL") == std::string::npos);
    CHECK(result.report.find("Replay: run ./my_sink_tests again") != std::string::npos);
    CHECK(result.report.find("kafka: ") !=
          std::string::npos);  // the sink's own calls, step by step
}

TEST_CASE("sink contract: an unknown kind or a bad option is refused", "[testkit]") {
    ContractOptions unknown;
    unknown.sink = "no_such_sink";
    CHECK_THROWS_WITH(check_sink_contract(unknown), Catch::Contains("registered:"));
    auto bad = kafka("twice", 1);
    CHECK_THROWS_WITH(check_sink_contract(bad), Catch::Contains("/guarantee"));
}

TEST_CASE("sink contract: rapidcheck's Catch2 glue runs the property", "[testkit]") {
    rc::prop("Kafka exactly-once keeps the sink contract",
             sink_contract_property(kafka("exactly_once", 0)));
}

}  // namespace
}  // namespace eosim::testkit
