// The state hash: what every outside system holds at the end of a run, reported beside the trace
// hash and checked by --check-determinism. Two runs that store different documents differ in it;
// a sink that writes different data through the same events makes the determinism check fail.
#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/run_command.h"
#include "engine/connectors/sink_registry.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "sim/external/append_store.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

json state_hash_catalogue_json(const std::string& name) {
    std::ifstream in(testing::catalogue_scenario(name));
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

RunResult run_state_hash_json(const json& scenario, uint64_t seed) {
    RunOptions options;
    options.seed = seed;
    return run_scenario(load_scenario_text(scenario.dump(), "state-hash.json"), options);
}

// A test-only sink: appends each record with its value shifted by a process-wide counter of the
// instances made, so the same scenario and seed store different values on every run of a process,
// through the same events (the append store is called synchronously: nothing of it is traced).
std::atomic<int64_t> drift{0};

class DriftingAppendSink final : public engine::Sink {
public:
    DriftingAppendSink(engine::SinkContext& context, sim::external::AppendStore& store)
        : context_(context), store_(store), shift_(++drift * 1000) {}
    bool open(int64_t, const std::vector<engine::RestoredSinkState>&) override { return true; }
    void write(const engine::RecordBatch& records) override {
        for (const engine::Record& r : records) {
            (void)store_.append(context_.node(),
                                sim::external::KafkaRecord{r.key, r.value + shift_});
        }
    }
    bool pre_commit(int64_t, std::string*, std::string*) override { return true; }
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

private:
    engine::SinkContext& context_;
    sim::external::AppendStore& store_;
    int64_t shift_;
};

class DriftingAppendConfig final : public engine::SinkConfig {
public:
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig&) const override {
        return std::make_unique<DriftingAppendSink>(context, *systems.append_store);
    }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        std::vector<engine::Record> out;
        for (const auto& r : systems.append_store->records())
            out.push_back(engine::Record{r.key, r.value});
        return out;
    }
};

EOSIM_REGISTER_SINK((engine::SinkKind{
    "test_drifting_append",
    "tests only: appends records shifted by a process-wide counter (nondeterministic content)",
    [](engine::SinkOptions&, const std::string&, const engine::SinkWorld&) {
        return std::make_shared<DriftingAppendConfig>();
    }}));

TEST_CASE("state hash: documents stored under other ids give another state hash", "[state_hash]") {
    json generated = state_hash_catalogue_json("kafka-to-es-auto-id");
    json record_ids = generated;
    for (json& v : record_ids["job"]["vertices"]) {
        if (v.value("sink", "") == "documents") v["options"]["id"] = "record";
    }
    const RunResult a = run_state_hash_json(generated, 1);
    const RunResult b = run_state_hash_json(record_ids, 1);
    INFO("trace hashes " << a.trace_hash << " and " << b.trace_hash);
    CHECK(a.state_hash != b.state_hash);
    // The output oracle counts an index's documents as documents.
    for (const OracleVerdict& v : a.verdicts) {
        if (v.oracle == "exactly_once_output")
            CHECK(v.message.find("documents in index \"counts\", ") != std::string::npos);
    }
    // The same scenario and seed: the same state hash.
    CHECK(run_state_hash_json(generated, 1).state_hash == a.state_hash);
}

TEST_CASE("state hash: a sink storing other data through the same events fails --check-determinism",
          "[state_hash]") {
    json s = testing::smallest_append_job();
    s["job"]["vertices"][1]["sink"] = "test_drifting_append";
    s["oracles"] = {"liveness"};
    s["expect"] = "pass";
    const RunResult first = run_state_hash_json(s, 1);
    const RunResult second = run_state_hash_json(s, 1);
    CHECK(first.trace_hash == second.trace_hash);  // the events are the same ...
    CHECK(first.state_hash != second.state_hash);  // ... what the store holds is not

    const testing::TempDir dir;
    dir.write("drift.json", s.dump());
    cli::RunCommand command;
    command.file = (dir / "drift.json").string();
    command.check_determinism = true;
    std::ostringstream out, err;
    CHECK(cli::run_command(command, out, err) == cli::kExitNotMet);
    INFO(err.str());
    CHECK(err.str().find("determinism check failed") != std::string::npos);
    CHECK(err.str().find("the same events stored different data in an outside system") !=
          std::string::npos);

    // The same job with the append sink passes the check and reports the state hash.
    s["job"]["vertices"][1]["sink"] = "append";
    dir.write("steady.json", s.dump());
    command.file = (dir / "steady.json").string();
    std::ostringstream steady_out, steady_err;
    CHECK(cli::run_command(command, steady_out, steady_err) == cli::kExitMet);
    CHECK(steady_out.str().find("state hash  ") != std::string::npos);
    CHECK(steady_out.str().find(
              "determinism ok: the second run gave the same trace hash and state hash") !=
          std::string::npos);
}

}  // namespace
}  // namespace eosim::scenarios
