// One list of the points a sink announces (SinkConfig::announced_points()), read
// by the loader and the testkit alike and enforced where the sink announces; the contract level's
// step log puts the calls of close() and of timers under the step that made them.
#include <catch2/catch.hpp>

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "engine/connectors/sink_points.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/key_value_store.h"
#include "testkit/contract_harness.h"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/replayed_jobs.h"

namespace eosim::testkit {
namespace {

// A keyed table in the key-value store that writes at once (GET, then SET when newer; it retries
// nothing, so the tests draw no outside-system faults), announces sink.flushed after each write and
// declares the points it is given (the negative control: none), and makes
// a call from close() and from a timer it arms at open (100 ms later), so the log shows whose they
// are.
class FlushAnnouncingSink final : public engine::Sink {
public:
    FlushAnnouncingSink(engine::SinkContext& context, sim::external::KeyValueStore& store)
        : context_(context), store_(store) {}
    bool open(int64_t, const std::vector<engine::RestoredSinkState>&) override {
        context_.after(sim::Duration::millis(100), [this] {
            store_.set(context_.node(), "timer:" + std::to_string(context_.subtask()), 1);
        });
        return true;
    }
    void write(const engine::RecordBatch& records) override {
        for (const engine::Record& r : records) {
            if (store_.get(context_.node(), "t:" + std::to_string(r.key)).value.value_or(0) >=
                r.value)
                continue;
            store_.set(context_.node(), "t:" + std::to_string(r.key), r.value);
        }
        engine::announce_point(context_, engine::sink_points::kFlushed,
                               static_cast<int64_t>(records.size()));
    }
    bool pre_commit(int64_t, std::string*, std::string*) override { return true; }
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }
    void close() override {
        store_.set(context_.node(), "closed:" + std::to_string(context_.subtask()), 1);
    }

private:
    engine::SinkContext& context_;
    sim::external::KeyValueStore& store_;
};

class FlushAnnouncingConfig final : public engine::SinkConfig {
public:
    explicit FlushAnnouncingConfig(std::vector<std::string_view> declared)
        : declared_(std::move(declared)) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig&) const override {
        return std::make_unique<FlushAnnouncingSink>(context, *systems.key_values);
    }
    engine::SinkOutputShape output_shape() const override {
        return engine::SinkOutputShape::keyed_table;
    }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        std::vector<engine::Record> out;
        for (const auto& [key, value] : systems.key_values->entries("t:"))
            out.push_back(engine::Record{std::stoll(key.substr(2)), value});
        return out;
    }
    std::vector<std::string_view> announced_points() const override { return declared_; }

private:
    std::vector<std::string_view> declared_;
};

engine::SinkKind flush_announcing_kind(const std::string& name,
                                       std::vector<std::string_view> declares) {
    return engine::SinkKind{name,
                            "announces sink.flushed (tests/testkit/test_announced_points.cpp)",
                            [declares](engine::SinkOptions& options, const std::string&,
                                       const engine::SinkWorld& world) {
                                if (!world.has_system("key_values"))
                                    options.fail("", "a world with the key-value store");
                                return std::make_shared<const FlushAnnouncingConfig>(declares);
                            }};
}

EOSIM_REGISTER_SINK(flush_announcing_kind("points_flush_declared",
                                          {engine::sink_points::kFlushed}));
EOSIM_REGISTER_SINK(flush_announcing_kind("points_flush_undeclared", {}));
// Declares sink.committed too, which it never announces.
EOSIM_REGISTER_SINK(flush_announcing_kind("points_flush_and_committed",
                                          {engine::sink_points::kFlushed,
                                           engine::sink_points::kCommitted}));

TEST_CASE("announced points: a sink point the config does not declare throws where it is announced",
          "[testkit]") {
    ContractOptions contract;
    contract.sink = "points_flush_undeclared";
    contract.cases = 20;
    contract.faults = {
        {"crash", 1}, {"crash_at_point", 1}, {"zombie", 1}};  // the sink does not retry what failed
    const auto caught = check_sink_contract(contract);
    INFO(caught.report);
    CHECK_FALSE(caught.passed);
    CHECK(caught.report.find(
              "announced sink.flushed, which its SinkConfig::announced_points() does not list") !=
          std::string::npos);
    testing::TempDir dir;
    JobOptions jobs;
    jobs.sink = "points_flush_undeclared";
    jobs.cases = 1;
    jobs.output_dir = (dir / "failures").string();
    CHECK_THROWS_WITH(check_sink_in_jobs(jobs), Catch::Contains("does not list (it lists none)"));
    // Its twin declares the point: it keeps the contract, and crashes are aimed at the point.
    contract.sink = "points_flush_declared";
    const auto twin = check_sink_contract(contract);
    INFO(twin.report);
    CHECK(twin.passed);
    CHECK(twin.points_announced.contains("sink.flushed"));
}

TEST_CASE("announced points: the testkit aims only at declared points and refuses others",
          "[testkit]") {
    ContractOptions contract;
    contract.sink = "kafka";
    contract.options = {{"guarantee", "exactly_once"}};
    contract.points = {
        "sink.flushed"};  // the Kafka sink declares precommitted, committed, recovered
    CHECK_THROWS_WITH(check_sink_contract(contract),
                      Catch::Contains("the sink does not declare sink.flushed"));
    contract.options = {
        {"guarantee", "at_least_once"}};  // declares none: no crash at a point is drawn
    contract.points = {};
    contract.cases = 30;
    const auto none = check_sink_contract(contract);
    CHECK(none.faults_drawn.count("crash_at_point") == 0);
    JobOptions jobs;
    jobs.points = {"sink.flushed"};
    CHECK_THROWS_WITH(
        check_sink_in_jobs(jobs),
        Catch::Contains("JobOptions::points: the sink does not declare sink.flushed"));
    jobs.points = {"leadership.granted"};  // no drawn job has high availability
    testing::TempDir dir;
    jobs.output_dir = (dir / "failures").string();
    CHECK_THROWS_WITH(
        check_sink_in_jobs(jobs),
        Catch::Contains("no component of the drawn jobs announces leadership.granted"));
}

TEST_CASE(
    "announced points: a declared point the sink never announces is reported, and fails when asked for",
    "[testkit]") {
    ContractOptions contract;
    contract.sink = "points_flush_and_committed";
    contract.cases = 20;
    contract.faults = {{"crash", 1}, {"crash_at_point", 1}, {"zombie", 1}};
    const auto told = check_sink_contract(contract);
    INFO(told.report);
    CHECK(told.passed);  // the default points: told, not failed
    CHECK(told.report.find("the sink never announced sink.committed") != std::string::npos);
    contract.points = {"sink.flushed", "sink.committed"};
    const auto asked = check_sink_contract(contract);
    INFO(asked.report);
    CHECK_FALSE(asked.passed);
    CHECK(asked.report.find("point sink.committed was never announced") != std::string::npos);
    testing::TempDir dir;
    JobOptions jobs;
    jobs.sink = "points_flush_and_committed";
    jobs.faults = {{"crash", 1}};
    jobs.points = {"sink.flushed", "sink.committed"};
    jobs.cases = 2;
    jobs.output_dir = (dir / "failures").string();
    const auto silent = check_sink_in_jobs(jobs);
    INFO(silent.report);
    REQUIRE_FALSE(silent.passed);
    CHECK(silent.report.find("no fault fired at point sink.committed") != std::string::npos);
    CHECK(silent.report.find("the sink never announced sink.committed") != std::string::npos);
    CHECK(silent.points_hit.contains("sink.flushed"));
}

TEST_CASE(
    "announced points: the issue's reproducer: a shrunk kv-table run with faults at sink.flushed loads and replays",
    "[testkit]") {
    // The kv-table example announced sink.flushed without declaring it: the testkit placed faults
    // there, and `eosim run` refused the shrunk file (exit 2). It declares it now.
    testing::TempDir dir;
    JobOptions jobs;
    jobs.sink = "buggy_kv_table";
    jobs.points = {"sink.flushed"};
    jobs.output_dir = (dir / "failures").string();
    const auto result =
        check_sink_in_jobs_and_replay(jobs);  // replays the file through cli::run_command
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.reproducer_replays);
    CHECK(result.points_hit.contains("sink.flushed"));
    CHECK(reproducers_replayed() >= 1);
}

TEST_CASE(
    "announced points: calls of close() and of timers are listed under the step that made them",
    "[testkit]") {
    ContractOptions options;
    options.sink = "points_flush_declared";
    options.zombies =
        false;  // a cancel that reaches the instance: close() runs in the cancel's step
    FaultPaths paths;
    ContractHarness harness(configure_sink(options), options, ContractChecks{}, 1, &paths);
    harness.start(1);
    harness.write(0, {0});
    harness.advance(150);  // the timer set at open fires
    harness.cancel(0);     // close() sets closed:0 (0: restored at the same parallelism)
    const std::string& log = harness.log();
    INFO(log);
    const size_t pass = log.find(". 150 ms pass");
    const size_t timer = log.find("SET timer:0");
    const size_t cancelled = log.find(" is CANCELLED");
    const size_t closed = log.find("SET closed:0");
    REQUIRE(pass != std::string::npos);
    REQUIRE(cancelled != std::string::npos);
    CHECK(pass < timer);  // under "150 ms pass", not under the write before it
    CHECK(timer < cancelled);
    CHECK(cancelled < closed);  // under the cancel, not under "150 ms pass"
    CHECK(log.find("opens", closed) !=
          std::string::npos);  // and before the next step (the restore)

    // A crash at a point is listed with the calls of the step that announced it, after them.
    ContractHarness crashing(configure_sink(options), options, ContractChecks{}, 1, &paths);
    crashing.start(1);
    crashing.crash_at_point("sink.flushed", 0);
    crashing.write(0, {0});
    crashing.advance(10);
    const std::string& crash_log = crashing.log();
    INFO(crash_log);
    const size_t writes = crash_log.find(" writes k0=#1");
    const size_t set = crash_log.find("SET t:0 1");
    const size_t crash = crash_log.find("CRASHES at its announcement of sink.flushed");
    REQUIRE(writes != std::string::npos);
    REQUIRE(crash != std::string::npos);
    CHECK(writes < set);
    CHECK(set < crash);
    const std::string between = crash_log.substr(writes, crash - writes);
    bool step_between = false;  // a numbered step line ("  N. ...") between the write and the crash
    for (size_t at = between.find("\n  "); at != std::string::npos;
         at = between.find("\n  ", at + 1)) {
        if (at + 3 < between.size() && std::isdigit(static_cast<unsigned char>(between[at + 3])))
            step_between = true;
    }
    CHECK_FALSE(step_between);
}

}  // namespace
}  // namespace eosim::testkit
