#pragma once
// The scenario catalogue for the tests and the benchmarks: scenarios/catalogue/<theme>/<name>.json,
// found by name, so that no test or benchmark depends on the theme a scenario is in; and the
// smallest scenario document, for loader tests that add one block to it.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario_files.h"

namespace eosim::testing {

inline const std::filesystem::path kCatalogue =
    std::filesystem::path(EOSIM_SOURCE_DIR) / "scenarios" / "catalogue";

// The catalogue's file for scenario `name` (e.g. "kafka-count-eos"); throws when there is none.
inline std::filesystem::path catalogue_scenario(const std::string& name) {
    return scenarios::find_scenario_file(kCatalogue, name);
}

// One TaskManager, a Kafka source into the append sink, 50 records over 4 keys, a checkpoint every
// 200 ms, at_least_once_output: a test adds the block it is about (faults, high_availability, ...).
inline nlohmann::json smallest_append_job() {
    return nlohmann::json::parse(R"({
      "world": {"task_managers": 1, "topics": [{"name": "input", "partitions": 1}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input"},
        {"id": "sink", "kind": "sink", "sink": "append", "inputs": [{"from": "source"}]}],
        "checkpointing": {"interval": "200ms"}},
      "input": [{"topic": "input", "records": 50, "keys": 4, "rate_per_second": 100}],
      "oracles": ["at_least_once_output"]
    })");
}

// Flink CDC's copy of one table into the upsert sink (`orders` -> `copy`, parallelism 2), no
// oracles: a loader test adds the oracles and expectation it is about.
inline nlohmann::json smallest_cdc_copy() {
    return nlohmann::json::parse(R"({
      "world": {"task_managers": 1, "slots_per_task_manager": 4},
      "database": {"tables": [{"name": "orders", "initial_rows": 10}],
                   "workload": {"table": "orders", "transactions": 10, "keys": 40}},
      "job": {"vertices": [
        {"id": "source", "kind": "cdc_source", "table": "orders", "chunk_size": 8, "parallelism": 2},
        {"id": "sink", "kind": "sink", "sink": "upsert", "options": {"table": "copy"}, "parallelism": 2,
         "inputs": [{"from": "source", "edge": "hash"}]}]}
    })");
}

}  // namespace eosim::testing
