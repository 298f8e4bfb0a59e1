#pragma once
// The scenario loader: one pass over the document in a fixed order (world, database, job, input,
// faults, oracles, expect), so later sections are checked against earlier ones: vertices against
// topics and slots, faults against node names, the expectation against the oracles. Each section's
// reader lives in its own file here (read_world.cpp, read_job.cpp, ...); every user error is a
// ScenarioError naming the file, the JSON path and what was expected.
#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/fault_types.h"
#include "scenarios/loader/json_value.h"

namespace eosim::scenarios::loading {

// Every value of the enums a scenario names, for reading them by name and listing them in errors.
inline constexpr std::array kAllOperators = {
    engine::OperatorKind::kafka_source, engine::OperatorKind::map,
    engine::OperatorKind::filter,       engine::OperatorKind::union_all,
    engine::OperatorKind::keyed_count,  engine::OperatorKind::keyed_sum,
    engine::OperatorKind::sink,         engine::OperatorKind::cdc_source,
    engine::OperatorKind::window,       engine::OperatorKind::join,
    engine::OperatorKind::dedup};
inline constexpr std::array kAllEdges = {engine::EdgeKind::forward, engine::EdgeKind::hash,
                                         engine::EdgeKind::rebalance};
inline constexpr std::array kAllModes = {engine::CheckpointingMode::exactly_once,
                                         engine::CheckpointingMode::at_least_once};
// "" when `job` fits the slots of `world`'s TaskManagers; else what its slot sharing groups need
// (engine/runtime/slot_placement.h), as a ScenarioError's "expected ..." text.
std::string slot_shortage(const engine::JobSpec& job, const WorldSpec& world);

// A window vertex's "window" (scenarios/loader/read_window.cpp).
engine::WindowSpec read_window(const Value& v);

// "state_backend" ("heap" or "rocksdb") and "incremental" of `o` (a job or a deployment), if either
// is there.
std::optional<engine::StateBackendOptions> read_state_backend(const Object& o);

class Loader {
public:
    explicit Loader(const std::string& file) : file_(file) {}
    Scenario load(const json& document, const std::filesystem::path& path);

private:
    void read_world(const Value& v);
    void read_topics(const Value& v);
    void read_network(const Value& v);
    void read_storage(const Value& v);
    void read_kafka(const Value& v);
    void read_database(const Value& v);
    void read_high_availability(const Value& v);
    void read_workload(const Value& v);
    void read_job(const Value& v);
    void read_vertex(const Value& v);
    void read_vertex_inputs(const Object& o, engine::VertexSpec& vertex);
    void read_sink(const Object& o, engine::VertexSpec& vertex);
    void check_vertices(const Value& v);
    std::vector<engine::VertexSpec> read_deployment_vertices(const Value& v);
    void add_verification_topics(const Value& v);
    void check_version_source(const Object& o, const engine::VertexSpec& sink);
    void check_source_identity_chain(const Object& o, const engine::VertexSpec& sink);
    void check_window_upstream(const Object& o, const engine::VertexSpec& window);
    void check_dedup_key_order(const Object& o, const engine::VertexSpec& dedup);
    void read_checkpointing(const Value& v);
    void read_restart(const Value& v);
    void read_runtime(const Value& v);
    void read_input(const Value& v);
    void check_no_late_records_into_dedup(const Value& late_percent, const InputSpec& in) const;
    void read_partition_weights(const Value& v, const Object& input, InputSpec& in) const;
    void read_faults(const Value& v);
    void read_fault(const Value& v);
    void read_trigger(const Object& o, sim::FaultSpec& fault);
    void read_running_task(const Value& v, sim::FaultSpec& fault);
    void read_random_faults(const Value& v);
    void read_end_window(const Value& v, RandomFaults& r);
    void read_random_kinds(const Value& v, RandomFaults& r);
    RandomFaultKind read_random_kind(const Value& v, const FaultType& type);
    void read_point_triggers(const Value& v, PointTriggers& p);
    void read_sometimes(const Value& v);
    void read_sensitivity(const Value& v, const json& document);
    void read_sensitivity_targets(const Value& v, const json& document);
    void read_sensitivity_reasons(const Value& v, std::vector<std::string>& unexplained);
    std::vector<std::string> read_node_names(const Value& v);
    std::string read_node_name(const Value& v);
    // A registered outside system's name (scenarios/outside_system_registry.h), marked used by the
    // run, one a fault's "system" may name (`target`: batches, one with bulk requests; races, one
    // whose calls race).
    std::string read_system_name(const Value& v, SystemTarget target);
    std::vector<std::string> read_system_names(const Value& v, SystemTarget target);
    void use_outside_system(const std::string& name);
    void read_savepoints(const Value& v);
    void read_deployments(const Value& v);
    void read_upgrade_swarm(const Value& v);
    RestoreSource read_restore_source(const Value& v, size_t index);
    int64_t read_checkpoint_id(const Value& v, const std::string& rest, size_t index);
    void check_restore_sources();
    void read_oracles(const Value& v);
    void read_expect(const Value& v);
    void check_oracles_judge_failure(const Value& v);

    bool topic_exists(const std::string& name) const;
    int32_t topic_partitions(const std::string& name) const;  // 0 when absent
    std::vector<std::string> topic_names() const;
    std::vector<std::string> node_names() const;

    const std::string& file_;
    Scenario s_;
    std::set<std::string> listed_vertex_ids_;  // every vertex id in the file, read or not yet
    std::map<std::string, std::string> sink_topics_;    // topic -> sink vertex path
    std::map<std::string, std::string> source_topics_;  // topic -> source vertex path
    std::string quiet_after_path_;                      // where faults.random.quiet_after was read
    bool has_database_ = false;                         // the document has a "database" section
    int64_t input_records_ = 0;                         // of all inputs read so far
    int64_t topic_partitions_ = 0;                      // of all topics read so far
    std::vector<std::string> input_paths_;              // per input, its JSON path
    std::vector<std::pair<std::string, sim::Time>>
        fault_times_;  // per scheduled fault at a time: its "at" path
};

}  // namespace eosim::scenarios::loading
