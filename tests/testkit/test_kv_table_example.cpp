// The keyed-table example built in-tree: examples/kv-table-sink's own tests run here as they do
// against the installed package (its sources are compiled into this test; it passes at the contract
// level and inside jobs: a correct keyed-table sink raises no false alarm at either level), and its
// buggy twin (examples/kv-table-sink-buggy) must be caught.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "examples/kv-table-sink/kv_table_sink.cpp"
#include "examples/kv-table-sink/register_kv_table_sink.cpp"
#include "examples/kv-table-sink/test_kv_table_sink.cpp"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"

// The buggy variants, registered as examples/*-buggy do (a line each: the macro names its variable
// after the line).
EOSIM_REGISTER_SINK(kv_table_example::kv_table_kind(
    "buggy_kv_table", kv_table_example::KvTableSlip::no_version_guard));

namespace eosim::testkit {
namespace {

TEST_CASE("kv table example: the unguarded key-value table is caught going backwards",
          "[testkit]") {
    ContractOptions options;
    options.sink = "buggy_kv_table";
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("BACKWARDS") != std::string::npos);
}

TEST_CASE("kv table example: a keyed table is not judged by committed-only visibility unless asked",
          "[testkit]") {
    // The correct sink shows values before their checkpoint completes (it upserts at once): with
    // visibility asked for explicitly it is caught; by default it is not judged by it.
    ContractOptions options;
    options.sink = "kv_table";
    CHECK(contract_checks(options, engine::SinkOutputShape::keyed_table) ==
          std::vector<std::string>{"exactly_once_output", "no_key_backwards"});
    options.visibility = Visibility::committed_only;
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("no completed checkpoint covers it") != std::string::npos);
}

TEST_CASE("kv table example: the report tells which sink points the sink announced", "[testkit]") {
    ContractOptions options;
    options.sink = "kv_table";
    const auto result = check_sink_contract(options);
    INFO(result.report);
    CHECK(result.passed);  // the default points: those it declares, both announced
    CHECK(result.report.find("the sink never announced") == std::string::npos);
    CHECK(result.points_announced.at("sink.precommitted") > 0);
    CHECK(result.points_announced.at("sink.flushed") > 0);
    CHECK(result.faults_drawn.at("system_write_errors") >
          0);  // the key-value store's faults, as it uses it
    CHECK_FALSE(result.faults_drawn.contains("kafka_commit_errors"));  // it writes no Kafka topic
}

// The kv-table sink with a heartbeat timer that close() never stops: a cancelled instance (a
// zombie) keeps firing it forever (the negative control of no_leaks' timer check).
class HeartbeatSink final : public engine::Sink {
public:
    HeartbeatSink(std::unique_ptr<engine::Sink> inner, engine::SinkContext& context)
        : inner_(std::move(inner)), context_(context) {}
    bool open(int64_t id, const std::vector<engine::RestoredSinkState>& state) override {
        beat();
        return inner_->open(id, state);
    }
    void write(const engine::RecordBatch& records) override { inner_->write(records); }
    bool pre_commit(int64_t id, std::string* state, std::string* error) override {
        return inner_->pre_commit(id, state, error);
    }
    void checkpoint_complete(int64_t id) override { inner_->checkpoint_complete(id); }
    bool settled() const override { return inner_->settled(); }

private:
    void beat() {
        context_.after(sim::Duration::millis(100), [this] { beat(); });
    }
    std::unique_ptr<engine::Sink> inner_;
    engine::SinkContext& context_;
};

class HeartbeatConfig final : public engine::SinkConfig {
public:
    HeartbeatConfig() : inner_(configure_sink(table_options())) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig& runtime) const override {
        return std::make_unique<HeartbeatSink>(inner_->make(context, systems, runtime), context);
    }
    engine::SinkOutputShape output_shape() const override { return inner_->output_shape(); }
    std::vector<std::string_view> announced_points() const override {
        return inner_->announced_points();
    }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        return inner_->read_output(systems);
    }

private:
    static ContractOptions table_options() {
        ContractOptions o;
        o.sink = "kv_table";
        return o;
    }
    std::shared_ptr<const engine::SinkConfig> inner_;
};

TEST_CASE(
    "kv table example: no_leaks passes the kv table and catches a timer that outlives close()",
    "[testkit]") {
    ContractOptions options;
    options.sink = "kv_table";
    options.oracles = {"exactly_once_output", "no_key_backwards", "no_leaks"};
    const auto clean = check_sink_contract(options);
    INFO(clean.report);
    CHECK(clean.passed);
    options.config = std::make_shared<HeartbeatConfig>();
    const auto leaking = check_sink_contract(options);
    INFO(leaking.report);
    REQUIRE_FALSE(leaking.passed);
    CHECK(leaking.report.find("timers of closed instances fired") != std::string::npos);
}

TEST_CASE("kv table example: at the job level a keyed table is never read as appended records",
          "[testkit]") {
    JobOptions options;
    options.sink = "kv_table";
    options.oracles = {"at_least_once_output", "liveness"};
    CHECK_THROWS_WITH(check_sink_in_jobs(options), Catch::Contains("keyed table"));
}

}  // namespace
}  // namespace eosim::testkit
