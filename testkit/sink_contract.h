#pragma once
// The contract-level property test of a sink: one call checks a sink kind against the sink
// contract (engine/connectors/sink.h) with rapidcheck's state-machine testing (rc::state).
//
//     eosim::testkit::ContractOptions options;
//     options.sink = "my_sink";                          // a registered kind (EOSIM_REGISTER_SINK)
//     options.options = {{"path", "out/"}};              // its scenario "options"
//     const auto result = eosim::testkit::check_sink_contract(options);
//     INFO(result.report);
//     REQUIRE(result.passed);
//
// or, inside a Catch2 test with rapidcheck's own glue:  rc::prop("my sink", sink_contract_property(options));
//
// What one case does: the testkit builds a simulated world (sim::World with a seed drawn by
// rapidcheck) with the outside systems (Kafka with topic "output", the append store, the object
// store "objects", the document store "documents", the key-value store "key_values"), makes the sink through its SinkConfig, and drives one sink instance and its
// later incarnations through a random sequence of commands:
//   write N records (a deterministic job's output: after a restore the records after the restored
//   checkpoint are written again, in the same order, as a replaying job would), pre-commit (the
//   next checkpoint id), complete a pre-committed checkpoint with its notification delivered, lost,
//   or held back and delivered late (possibly after newer ones, possibly to a cancelled instance),
//   crash (the instance's node dies) and cancel (close(); the instance lives on as a zombie that
//   keeps writing and pre-committing) each followed by a new incarnation opened with the sink
//   state of the latest completed checkpoint (as Flink restores; completing a later checkpoint
//   subsumes -- aborts -- the pre-committed ones before it, and a notification held back may
//   arrive after newer ones or at a zombie), outside-system faults (unavailable, write errors),
//   and the passing of virtual time (retries, timeouts). A sink that fails (SinkContext::fail, a
//   pre-commit that returns false) is failed over the same way, as the engine would.
// After every step it reads what the outside system shows (SinkConfig::read_output) and checks:
//   - appended output, Visibility::committed_only (a two-phase-commit sink): every visible record
//     belongs to a completed checkpoint, and none is visible twice;
//   - appended output, Visibility::eventually (at-least-once is enough while running): no record
//     is visible twice, and every visible record was written;
//   - keyed table: every visible (key, value) was written for that key, and no key's value goes
//     backwards (values grow with the job's output order).
// At the end it heals every fault, lets the live instance catch up, completes a final checkpoint
// and checks equality: the appended output equals, as a multiset, exactly the records of the
// completed checkpoints; a keyed table equals the last value per key of those records.
//
// On a failure rapidcheck prints the shrunk case: `unsigned long: N` is the world's seed, then the
// commands; the message after it says what broke and replays the run step by step.
//
// Not checked: latency, how many calls the sink makes, what it writes to places read_output does
// not read (read_output is the sink author's definition of "what a reader sees"), parallel
// subtasks of the same sink (the job-level check, sink_jobs.h, covers them).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/connectors/sink_registry.h"
#include "engine/runtime/job_spec.h"

namespace eosim::testkit {

enum class Visibility : uint8_t {
    committed_only,  // only records of completed checkpoints may be visible (exactly-once, 2PC)
    eventually,      // uncommitted records may be visible, but never twice (idempotent appends)
};

struct ContractOptions {
    // The sink under test: a registered kind and its options, or a config made directly.
    std::string sink = "kafka";
    nlohmann::json options = nlohmann::json::object();
    std::shared_ptr<const engine::SinkConfig> config;  // when set, `sink` and `options` are not read
    // How appended output may show uncommitted records (keyed tables ignore this).
    Visibility visibility = Visibility::committed_only;

    int cases = 100;            // rapidcheck test cases
    uint64_t seed = 1;          // rapidcheck's seed: the same seed finds the same counterexample
    int max_size = 100;         // rapidcheck's maximum size (about the longest command sequence)
    int keys = 4;               // distinct record keys
    bool outside_faults = true; // unavailable periods and write errors of the outside systems
    bool zombies = true;        // cancelled instances that keep calling
    int32_t kafka_partitions = 2;
    engine::RuntimeConfig runtime;  // commit_retry_delay etc., as the sink sees them
};

struct ContractResult {
    bool passed = false;
    int cases = 0;       // cases that passed before the verdict
    std::string report;  // rapidcheck's verdict: on a failure the shrunk command sequence and what broke
    explicit operator bool() const { return passed; }
};

// Runs the property `options.cases` times; never throws for a failing sink (the result says it).
// Throws std::invalid_argument when the kind is unknown or its options are wrong.
ContractResult check_sink_contract(const ContractOptions& options);

// The property itself, for rc::check / rc::prop (rapidcheck/catch.h); it reads rapidcheck's own
// configuration (RC_PARAMS) for the number of cases and the seed.
std::function<void()> sink_contract_property(const ContractOptions& options);

// The SinkConfig `options` names (the kind configured against the testkit's world: Kafka topic
// "output", systems kafka, append_store, objects, documents, key_values).
std::shared_ptr<const engine::SinkConfig> configure_sink(const ContractOptions& options);

}  // namespace eosim::testkit
