// Incremental checkpoints through the whole engine (RocksDB backend, shared-state registry,
// storage oracle): after many checkpoints with `retained: 2` checkpoint storage holds exactly the
// files the two retained checkpoints refer to (nothing leaked, nothing lost), also under aborts of
// every kind; the same seed gives the same trace hash with RocksDB; the registry rebuilt after a
// JobManager crash keeps what the retained checkpoints refer to. The storage oracle's negative
// control: a registry that forgets a reference deletes a file a retained checkpoint still refers
// to, and the oracle's check finds it.
#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/shared_state_registry.h"
#include "oracles/storage_oracle.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

scenarios::Scenario incremental_scenario(int64_t records, int64_t keys) {
    auto s = count_scenario(records, 2);
    s.job.state_backend = StateBackendOptions{StateBackendKind::rocksdb, true};
    s.job.checkpointing.interval = Duration::millis(200);
    s.job.checkpointing.retained = 2;
    s.inputs.front().keys = keys;
    s.inputs.front().rate_per_second = 2000;
    s.oracles.push_back("storage");
    return s;
}

TEST_CASE(
    "incremental checkpoints: with retained 2, storage holds exactly what the two retained checkpoints refer to",
    "[shared_state][rocksdb]") {
    for (bool with_aborts : {false, true}) {
        auto s = incremental_scenario(8000, 3000);
        if (with_aborts) {
            s.job.checkpointing.max_concurrent = 3;
            s.job.checkpointing.timeout = Duration::millis(300);
            s.job.checkpointing.tolerable_failures = 1000000;
            for (int64_t at_ms : {700, 1130, 1570, 2010}) {
                s.faults.push_back(timed_fault(sim::FaultKind::storage_failure,
                                               Duration::millis(at_ms), Duration::millis(40)));
            }
            sim::FaultSpec slow = timed_fault(sim::FaultKind::storage_slow, Duration::millis(2500),
                                              Duration::millis(800));
            slow.multiplier = 100;
            s.faults.push_back(slow);
        }
        const auto result = run_scenario(s, RunOptions{1, nullptr});
        INFO("with aborts: " << with_aborts << "\n" << describe(result));
        REQUIRE(result.expectation_met);
        REQUIRE(result.job_finished);
        const auto& f = result.figures;
        CHECK(f.checkpoints_completed >= 10);
        if (with_aborts) CHECK(f.checkpoints_aborted >= 2);
        CHECK(verdict(result, "storage").passed);   // nothing lost
        CHECK(f.checkpoint_files_unretained == 0);  // nothing leaked
        CHECK(f.checkpoint_bytes_unretained == 0);
        // Incremental: the checkpoints uploaded less than they refer to (much less without aborts:
        // an abort makes the next snapshot upload everything again).
        CHECK(f.shared_bytes_referenced > 0);
        CHECK(f.shared_bytes_uploaded < f.shared_bytes_referenced);
        if (!with_aborts) CHECK(f.shared_bytes_uploaded * 2 < f.shared_bytes_referenced);
    }
}

TEST_CASE("incremental checkpoints: same seed, same trace hash with RocksDB",
          "[shared_state][rocksdb]") {
    auto s = incremental_scenario(3000, 2000);
    s.faults.push_back(crash_at("tm0", Duration::millis(1100), Duration::millis(300)));
    const auto first = run_scenario(s, RunOptions{7, nullptr});
    const auto second = run_scenario(s, RunOptions{7, nullptr});
    REQUIRE(first.expectation_met);
    CHECK(first.trace_hash == second.trace_hash);
    CHECK(first.figures.shared_bytes_uploaded == second.figures.shared_bytes_uploaded);
}

TEST_CASE(
    "incremental checkpoints: JobManager crashes between registering and discarding shared state lose nothing",
    "[shared_state][rocksdb]") {
    auto s = incremental_scenario(6000, 3000);
    s.faults.push_back(crash_at_point("shared_state.registered", 9, Duration::millis(500)));
    s.faults.push_back(crash_at_point("shared_state.discarded", 6, Duration::millis(500)));
    for (uint64_t seed : {1, 2}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        REQUIRE(result.expectation_met);
        CHECK(verdict(result, "storage").passed);
        CHECK(verdict(result, "state_after_restore").passed);
    }
}

// ---- the registry, and the oracle's negative control -------------------------------------------

CompletedCheckpoint checkpoint(int64_t id, std::vector<std::string> shared) {
    CompletedCheckpoint c;
    c.id = id;
    c.handles[{0, 0}] = "checkpoints/j/chk-" + std::to_string(id) + "/op-0-a1";
    c.metadata_key = "checkpoints/j/chk-" + std::to_string(id) + "/_metadata";
    c.shared[{0, 0}] = std::move(shared);
    return c;
}

// Drives checkpoints 1..6 through a registry as the coordinator does (references taken at the
// acknowledgement, dropped when a checkpoint past `retained` is discarded, unreferenced files
// deleted) and returns what storage holds. `forget` is a broken registry's slip: it does not take
// the reference of checkpoint `forget`'s acknowledgement.
std::map<std::string, std::string> run_registry(int64_t forget) {
    JobSpec job;
    job.name = "j";
    job.checkpointing.retained = 2;
    std::map<std::string, std::string> storage;
    SharedStateRegistry registry;
    std::deque<CompletedCheckpoint> retained;
    // Checkpoints 1..5 upload one new file each and refer to the file checkpoint 1 uploaded; a
    // compaction before checkpoint 6 rewrote everything into one new file.
    for (int64_t id = 1; id <= 6; ++id) {
        std::vector<std::string> files;
        if (id < 6) files.push_back("checkpoints/j/shared/op-0-a1-c1-000009.sst");
        if (id > 1)
            files.push_back("checkpoints/j/shared/op-0-a1-c" + std::to_string(id) + "-0000" +
                            std::to_string(10 + id) + ".sst");
        CompletedCheckpoint c = checkpoint(id, files);
        for (const std::string& file : files) storage[file] = "sst";
        if (id != forget) registry.add_references(SharedStateRegistry::keys_of(c));
        storage[c.handles.begin()->second] = "private";
        storage[c.metadata_key] = serialize_checkpoint_metadata(c);
        retained.push_back(c);
        while (static_cast<int32_t>(retained.size()) > job.checkpointing.retained) {
            const CompletedCheckpoint gone = retained.front();
            retained.pop_front();
            storage.erase(gone.metadata_key);
            storage.erase(gone.handles.begin()->second);
            for (const std::string& key : registry.release_checkpoint(gone)) storage.erase(key);
        }
        if (auto lost = oracles::find_lost_checkpoint_file(
                job, storage, [](const std::string&) { return false; })) {
            storage["LOST"] = *lost;
            return storage;
        }
    }
    return storage;
}

TEST_CASE("shared-state registry: counts references and rebuilds from the retained checkpoints",
          "[shared_state]") {
    SharedStateRegistry registry;
    const auto a = checkpoint(1, {"s/a", "s/b"});
    const auto b = checkpoint(2, {"s/b", "s/c"});
    registry.add_references(SharedStateRegistry::keys_of(a));
    registry.add_references(SharedStateRegistry::keys_of(b));
    CHECK(registry.references("s/b") == 2);
    CHECK(registry.release_checkpoint(a) == std::vector<std::string>{"s/a"});
    CHECK(registry.references("s/b") == 1);
    const SharedStateRegistry rebuilt = SharedStateRegistry::rebuild({b});
    CHECK(rebuilt.entries() == registry.entries());
    // After a JobManager restart the newest checkpoint's metadata lists what the older retained
    // ones referred to; an older one holds them for the group.
    auto older = checkpoint(1, {});
    older.shared.clear();
    older.older_shared = {"s/a", "s/b"};
    const SharedStateRegistry after_restart = SharedStateRegistry::rebuild({older, b});
    CHECK(after_restart.references("s/a") == 1);
    CHECK(after_restart.references("s/b") == 2);
    // Metadata round trip of the shared references.
    const CompletedCheckpoint parsed =
        parse_checkpoint_metadata(serialize_checkpoint_metadata(b, {"s/a"}));
    CHECK(parsed.shared == b.shared);
    CHECK(parsed.older_shared == std::vector<std::string>{"s/a"});
}

TEST_CASE(
    "storage oracle: a registry that forgets a reference loses a retained checkpoint's file, and the oracle finds it",
    "[shared_state][oracle]") {
    const auto correct = run_registry(0);
    CHECK_FALSE(correct.contains("LOST"));
    CHECK(correct.contains(
        "checkpoints/j/shared/op-0-a1-c1-000009.sst"));  // checkpoint 5 still refers to it
    CHECK_FALSE(correct.contains("checkpoints/j/shared/op-0-a1-c2-000012.sst"));  // nothing does
    const auto broken = run_registry(3);
    REQUIRE(broken.contains("LOST"));
    CHECK(broken.at("LOST").find("000009.sst") != std::string::npos);
}

}  // namespace
}  // namespace eosim::engine
