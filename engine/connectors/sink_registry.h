#pragma once
// The sink registry: every sink kind, built-in or a user's, registers here under a name, and a
// scenario names it in a sink vertex:
//
//     {"id": "out", "kind": "sink", "sink": "kafka", "options": {"topic": "output"}, "inputs":
//     [...]}
//
// A kind turns the vertex's "options" into a SinkConfig when the scenario is loaded (so a bad
// option is a load error, exit code 2). The config then makes one Sink per subtask and attempt
// (sink.h), and tells the harness how to read what the outside system shows, which the oracles
// compare with the reference model. Built-in kinds register in builtin_sinks.cpp; a user's kind
// registers from its own translation unit with EOSIM_REGISTER_SINK (or SinkRegistry::global().add
// before eosim_main runs).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/connectors/outside_systems.h"
#include "engine/connectors/sink.h"
#include "engine/connectors/sink_options.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine {

// How the oracles read a sink's outside system after the run.
enum class SinkOutputShape : uint8_t {
    appended,  // every record the system shows, as a multiset (Kafka read_committed, an append log)
    keyed_table,  // one row per key holding the latest value (an upsert table, a keyspace, an index
                  // by key)
    key_counts,  // one row per key holding how many records the sink received for it (a counter per
                 // key)
};
const char* to_string(SinkOutputShape shape);

// A sink vertex, configured: made once per scenario load, shared by every subtask and attempt.
class SinkConfig {
public:
    virtual ~SinkConfig() = default;
    // One sink instance for a subtask of an attempt; `context` outlives it.
    virtual std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                                       const RuntimeConfig& runtime) const = 0;
    virtual SinkOutputShape output_shape() const { return SinkOutputShape::appended; }
    // What a reader of an appended output counts, in the oracles' messages ("17000 committed
    // records, 17000 expected"): e.g. "documents in index \"output\"" for a document index.
    virtual std::string output_units() const { return "committed records"; }
    // What a reader of the outside system sees now (committed data only), in any order; for a
    // keyed table one record (key, value) per key.
    virtual std::vector<Record> read_output(const OutsideSystems& systems) const = 0;
    // The Kafka topic the sink writes, if it writes one (the visibility oracle reads it).
    virtual std::string kafka_topic() const { return {}; }
    // Resources the sink needs for itself within a job (e.g. "Kafka topic \"out\""): the loader
    // refuses two sinks that claim the same one.
    virtual std::vector<std::string> claims() const { return {}; }
    // The sink points (engine/connectors/sink_points.h) this sink's instances announce: the one
    // list the loader (a fault at a point no component of the job announces is refused,
    // scenarios/point_reach.h), the testkit (where it aims faults) and `eosim points` read. A sink
    // that announces a point must list it here: SinkContext::announce throws for one it does not.
    virtual std::vector<std::string_view> announced_points() const { return {}; }
    // The option (a key of "options") that makes this sink name what it writes after each record's
    // source identity (engine/vocabulary/record.h: the source partition and offset), or empty when
    // it does not. The loader then requires every record reaching the sink to have one: the sink
    // reached from a kafka_source through maps and filters only (exit code 2 otherwise, at this
    // option).
    virtual std::string source_identity_option() const { return {}; }
};

// What a sink kind may ask of the scenario's world while it reads its options.
class SinkWorld {
public:
    virtual ~SinkWorld() = default;
    virtual std::vector<std::string> topics() const = 0;         // Kafka topics the world declares
    virtual std::vector<std::string> source_topics() const = 0;  // topics the job's sources read
    virtual bool has_system(const std::string& system) const = 0;  // "kafka", "append_store", ...
};

// The one topic the job's sources read, for a sink whose option `key` names records by their source
// identity ("<topic>-<partition>-<offset>"); throws SinkOptionsError at `key` when the sources read
// none or several.
std::string the_source_topic(const SinkOptions& options, const std::string& key,
                             const SinkWorld& world);

// A known-bad form of a configured sink: the same vertex with `options` that break its guarantee
// on purpose (the Kafka sink without transactions, documents with generated ids). The sensitivity
// check (scenarios/sensitivity.h) runs a passing scenario with each and expects an oracle to fire.
struct SinkTwin {
    std::string name;     // e.g. "at_least_once"
    std::string summary;  // what breaks, for people
    nlohmann::json options;
    // A bug class only a scenario built for it can see (e.g. a commit outstanding at the end of
    // the job): the sensitivity check runs it only where the scenario targets it
    // ("sensitivity": {"targets": [...]}), never as a blind spot of every other scenario.
    bool targeted = false;
};

// The one known-bad form that sets `key` to `bad` (`fallback`: the key's default), or none when
// the options already have `bad` there.
std::vector<SinkTwin> twin_setting(const nlohmann::json& options, const std::string& key,
                                   const nlohmann::json& fallback, const nlohmann::json& bad,
                                   std::string name, std::string summary);

struct SinkKind {
    std::string name;     // what a scenario writes in "sink"
    std::string summary;  // one line for listings and errors
    // Reads `options` (throwing SinkOptionsError) for the sink vertex `vertex_id`.
    std::function<std::shared_ptr<const SinkConfig>(
        SinkOptions& options, const std::string& vertex_id, const SinkWorld& world)>
        configure;
    // The known-bad forms of a sink with these (valid) options; none when unset or when the options
    // already ask for the weaker guarantee.
    std::function<std::vector<SinkTwin>(const nlohmann::json& options)> known_bad_twins = nullptr;
};

class SinkRegistry {
public:
    // The process-wide registry, with the built-in kinds registered on first use.
    static SinkRegistry& global();

    // Throws std::logic_error when the name is taken or the kind is incomplete.
    void add(SinkKind kind);
    const SinkKind* find(const std::string& name) const;
    std::vector<std::string> names() const;  // sorted

private:
    std::map<std::string, SinkKind> kinds_;
};

// Registers the built-in sink kinds (builtin_sinks.cpp); SinkRegistry::global() calls it once.
void register_builtin_sinks(SinkRegistry& registry);

}  // namespace eosim::engine

// Registers a sink kind from a user's translation unit at static initialisation:
//     EOSIM_REGISTER_SINK(my_sink_kind());   // an expression of type eosim::engine::SinkKind
// Its flag is named by __COUNTER__, unique within a translation unit: two registrations in files
// that a unity build batches together (CMake's UNITY_BUILD) do not clash, as __LINE__'s did.
#define EOSIM_SINK_CONCAT_INNER(a, b) a##b
#define EOSIM_SINK_CONCAT(a, b) EOSIM_SINK_CONCAT_INNER(a, b)
#define EOSIM_REGISTER_SINK(kind_expression)                                 \
    static const bool EOSIM_SINK_CONCAT(eosim_sink_registered_, __COUNTER__) \
        [[maybe_unused]] = [] {                                              \
            ::eosim::engine::SinkRegistry::global().add(kind_expression);    \
            return true;                                                     \
        }()
