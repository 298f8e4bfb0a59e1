// The loader's job section: vertices, sinks, checkpointing, restart, runtime
// (scenarios/loader/loader.h).
#include "engine/connectors/sink_registry.h"
#include "engine/connectors/upsert_sink.h"
#include "engine/runtime/slot_placement.h"
#include "scenarios/loader/loader.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios::loading {

constexpr int32_t kMaxParallelismLimit = 32768;  // Flink's upper bound for max parallelism (2^15)

// --- job ---

std::optional<engine::StateBackendOptions> read_state_backend(const Object& o) {
    const std::optional<Value> backend = o.get("state_backend");
    const std::optional<Value> incremental = o.get("incremental");
    const std::optional<Value> clip = o.get("clip_on_rescale");
    if (!backend && !incremental && !clip) return std::nullopt;
    engine::StateBackendOptions options;
    if (backend) {
        const std::string name =
            backend->get().is_string() ? backend->get().get<std::string>() : "";
        if (name == "heap") {
            options.kind = engine::StateBackendKind::heap;
        } else if (name == "rocksdb") {
            options.kind = engine::StateBackendKind::rocksdb;
        } else {
            backend->expected("\"heap\" or \"rocksdb\"");
        }
    }
    if (incremental) {
        options.incremental = read_bool(*incremental);
        if (options.incremental && options.kind != engine::StateBackendKind::rocksdb) {
            incremental->expected(
                "false: incremental checkpoints need \"state_backend\": \"rocksdb\"");
        }
    }
    if (clip) {
        options.clip_on_rescale = read_bool(*clip);
        if (!options.incremental)
            clip->fail(
                "expected clip_on_rescale only with \"state_backend\": \"rocksdb\" and \"incremental\": true");
    }
    return options;
}

void Loader::read_job(const Value& v) {
    const Object o(v, {"name", "max_parallelism", "state_backend", "incremental", "clip_on_rescale",
                       "vertices", "checkpointing", "restart", "runtime"});
    engine::JobSpec& job = s_.job;
    if (auto x = o.get("name")) job.name = read_string(*x);
    if (auto x = o.get("max_parallelism")) {
        job.max_parallelism =
            read_int32(*x, IntRange{1, kMaxParallelismLimit, "a positive integer"});
    }
    if (auto x = read_state_backend(o)) job.state_backend = *x;
    const Value vertices = o.require("vertices", "an array of vertices");
    if (vertices.get().is_array()) {
        for (const json& vertex : vertices.get()) {
            if (!vertex.is_object() || !vertex.contains("id") || !vertex["id"].is_string())
                continue;
            listed_vertex_ids_.insert(vertex["id"].get<std::string>());
        }
    }
    for_each_element(vertices, "an array of vertices",
                     [&](const Value& element) { read_vertex(element); });
    check_vertices(vertices);
    if (auto x = o.get("checkpointing")) read_checkpointing(*x);
    if (s_.has_cdc_source() && !s_.job.checkpointing.enabled) {
        // A CDC source emits a snapshot chunk only once a completed checkpoint holds its watermark.
        throw ScenarioError(
            file_, v.path() + "/checkpointing/enabled",
            "expected checkpointing enabled: a cdc_source emits its snapshot chunks only after a "
            "checkpoint completes (engine/connectors/cdc_source.h)");
    }
    if (auto x = o.get("restart")) read_restart(*x);
    if (auto x = o.get("runtime")) read_runtime(*x);
}

bool is_source(engine::OperatorKind kind) { return engine::is_source_kind(kind); }
bool is_sink(engine::OperatorKind kind) { return kind == engine::OperatorKind::sink; }

std::vector<std::string> vertex_keys(engine::OperatorKind kind) {
    std::vector<std::string> keys{"id", "kind", "parallelism"};
    if (!is_source(kind)) keys.push_back("inputs");
    switch (kind) {
        case engine::OperatorKind::kafka_source:
            keys.insert(keys.end(), {"topic", "watermarks"});
            break;
        case engine::OperatorKind::map: keys.push_back("map"); break;
        case engine::OperatorKind::filter: keys.push_back("filter"); break;
        case engine::OperatorKind::window: keys.push_back("window"); break;
        case engine::OperatorKind::dedup: keys.push_back("dedup"); break;
        case engine::OperatorKind::sink: keys.insert(keys.end(), {"sink", "options"}); break;
        case engine::OperatorKind::cdc_source:
            keys.insert(keys.end(), {"table", "chunk_size", "fetch_size"});
            break;
        default: break;
    }
    keys.insert(keys.end(), {"record_cost", "uid", "slot_sharing_group"});
    return keys;
}

engine::MapSpec read_map(const Value& v) {
    const Object o(
        v, {"key_multiplier", "key_offset", "key_modulus", "value_multiplier", "value_offset"});
    engine::MapSpec m;
    if (auto x = o.get("key_multiplier")) m.key_multiplier = read_int(*x, kAny64);
    if (auto x = o.get("key_offset")) m.key_offset = read_int(*x, kAny64);
    if (auto x = o.get("key_modulus")) m.key_modulus = read_int(*x, kNonNegative64);
    if (auto x = o.get("value_multiplier")) m.value_multiplier = read_int(*x, kAny64);
    if (auto x = o.get("value_offset")) m.value_offset = read_int(*x, kAny64);
    return m;
}

engine::FilterSpec read_filter(const Value& v) {
    const Object o(v, {"modulus", "drop_remainder"});
    engine::FilterSpec f;
    if (auto x = o.get("modulus")) f.modulus = read_int(*x, kPositive64);
    if (auto x = o.get("drop_remainder")) {
        f.drop_remainder =
            read_int(*x, IntRange{0, f.modulus - 1, "a non-negative integer below the modulus"});
    } else if (f.drop_remainder >= f.modulus) {
        o.get("modulus")->fail("expected a modulus above drop_remainder (" +
                               std::to_string(f.drop_remainder) + ")");
    }
    return f;
}

// "watermarks": {"out_of_orderness": "200ms", "idle_timeout": "2s"}
engine::WatermarkSpec read_watermarks(const Value& v) {
    const Object o(v, {"out_of_orderness", "idle_timeout"},
                   "an object (the source's watermark strategy)");
    engine::WatermarkSpec w;
    w.out_of_orderness = read_duration(
        o.require("out_of_orderness", "a duration (the bound of out-of-orderness)"), true);
    if (auto x = o.get("idle_timeout")) w.idle_timeout = read_duration(*x, false);
    return w;
}

engine::DedupSpec read_dedup(const Value& v) {
    const Object o(v, {"bound"}, "an object ({\"bound\": duration})");
    engine::DedupSpec d;
    d.bound = read_duration(o.require("bound", "a positive duration (e.g. \"1s\")"), false);
    if (d.bound.millis_count() <= 0)
        o.get("bound")->expected("a duration of at least 1ms (event time is in milliseconds)");
    return d;
}

void Loader::read_vertex(const Value& v) {
    if (!v.get().is_object()) v.expected("an object (a vertex)");
    const bool has_kind = v.get().contains("kind");
    const engine::OperatorKind kind =
        has_kind ? read_enum(v.child("kind"), kAllOperators, "a vertex kind")
                 : engine::OperatorKind::map;
    const Object o(v, vertex_keys(kind), "an object (a vertex)");
    if (!has_kind) o.missing("kind", "a vertex kind");

    engine::VertexSpec vertex;
    vertex.kind = kind;
    const Value id = o.require("id", "a non-empty string");
    vertex.id = read_string(id);
    if (s_.job.vertex_index(vertex.id) >= 0) {
        id.fail("duplicate vertex id " + in_quotes(vertex.id) + " (also /job/vertices/" +
                std::to_string(s_.job.vertex_index(vertex.id)) + ")");
    }
    if (!s_.job.vertices.empty() && is_sink(s_.job.vertices.back().kind) && !is_sink(kind)) {
        o.require("kind", "")
            .fail("expected a sink (sinks come last, after every other vertex), found " +
                  in_quotes(to_string(kind)));
    }
    if (auto x = o.get("parallelism")) {
        const int32_t slots = s_.world.task_managers * s_.world.slots_per_task_manager;
        vertex.parallelism = read_int32(*x, kPositive32);
        if (vertex.parallelism > s_.job.max_parallelism) {
            x->expected("at most max_parallelism (" + std::to_string(s_.job.max_parallelism) + ")");
        }
        if (vertex.parallelism > slots) {
            x->expected("at most the slots of the task managers (" +
                        std::to_string(s_.world.task_managers) + " x " +
                        std::to_string(s_.world.slots_per_task_manager) + " = " +
                        std::to_string(slots) + ")");
        }
    }
    if (kind == engine::OperatorKind::kafka_source) {
        const Value topic = o.require("topic", "the name of a topic in /world/topics");
        vertex.topic = read_string(topic);
        if (!topic_exists(vertex.topic)) {
            topic.expected("a topic listed in /world/topics (" + join(topic_names()) + ")");
        }
        source_topics_.emplace(vertex.topic, v.path());
        if (auto x = o.get("watermarks")) vertex.watermarks = read_watermarks(*x);
    }
    if (kind == engine::OperatorKind::cdc_source) {
        const Value table = o.require("table", "the name of a table in /database/tables");
        vertex.table = read_string(table);
        std::vector<std::string> tables;
        if (s_.database) {
            for (const auto& t : s_.database->tables) tables.push_back(t.name);
        }
        if (std::find(tables.begin(), tables.end(), vertex.table) == tables.end()) {
            table.expected("a table listed in /database/tables (" + join(tables) + ")");
        }
        if (auto x = o.get("chunk_size")) vertex.chunk_size = read_int(*x, kPositive64);
        if (auto x = o.get("fetch_size")) vertex.fetch_size = read_int(*x, kPositive64);
        // The chunks cover the keys the workload writes (and the initial rows); beyond, the last
        // chunk.
        vertex.chunk_key_end = s_.database->workload.keys;
        for (const auto& t : s_.database->tables)
            vertex.chunk_key_end = std::max(vertex.chunk_key_end, t.initial_rows);
    }
    if (kind == engine::OperatorKind::sink) read_sink(o, vertex);
    if (auto x = o.get("record_cost")) vertex.record_cost = read_duration(*x, true);
    if (auto x = o.get("map")) vertex.map = read_map(*x);
    if (auto x = o.get("filter")) vertex.filter = read_filter(*x);
    if (kind == engine::OperatorKind::dedup)
        vertex.dedup = read_dedup(o.require("dedup", "an object ({\"bound\": duration})"));
    if (!is_source(kind)) read_vertex_inputs(o, vertex);
    if (kind == engine::OperatorKind::window) {
        vertex.window = read_window(
            o.require("window", "a window ({\"kind\": \"tumbling\", \"size\": \"1s\", ...})"));
        check_window_upstream(o, vertex);
    }
    if (const auto* upsert = engine::upsert_sink_options(vertex);
        upsert != nullptr && upsert->version_guard) {
        check_version_source(o, vertex);
    }
    if (kind == engine::OperatorKind::sink) check_source_identity_chain(o, vertex);
    // A changelog flows from a CDC source through every vertex downstream of it.
    vertex.changelog_input = kind == engine::OperatorKind::cdc_source;
    for (const engine::InputEdge& edge : vertex.inputs) {
        if (s_.job.find(edge.from)->changelog_input) vertex.changelog_input = true;
    }
    if (vertex.changelog_input &&
        (kind == engine::OperatorKind::join || kind == engine::OperatorKind::dedup)) {
        o.require("inputs", "")
            .fail(std::string("expected append-only input for a ") + to_string(kind) +
                  " (it does not retract), found a changelog from a cdc_source upstream");
    }
    if (kind == engine::OperatorKind::dedup) check_dedup_key_order(o, vertex);
    if (auto x = o.get("uid")) {
        vertex.uid = read_string(*x);
        for (size_t i = 0; i < s_.job.vertices.size(); ++i) {
            if (s_.job.vertices[i].uid_or_id() == vertex.uid) {
                x->fail("duplicate uid " + in_quotes(vertex.uid) + " (also /job/vertices/" +
                        std::to_string(i) + ")");
            }
        }
    }
    if (auto x = o.get("slot_sharing_group"))
        vertex.slot_sharing_group = read_string(*x, "a slot sharing group's name");
    s_.job.vertices.push_back(std::move(vertex));
}

// What a sink kind may ask of the world while it reads its options.
class LoaderSinkWorld final : public engine::SinkWorld {
public:
    // `use_system` is called for each registered outside system the kind asks for: the run builds
    // it.
    LoaderSinkWorld(const Scenario& s, const std::map<std::string, std::string>& source_topics,
                    std::function<void(const std::string&)> use_system)
        : s_(s), source_topics_(source_topics), use_system_(std::move(use_system)) {}
    std::vector<std::string> topics() const override {
        std::vector<std::string> names;
        for (const TopicSpec& t : s_.world.topics) names.push_back(t.name);
        return names;
    }
    std::vector<std::string> source_topics() const override {
        std::vector<std::string> names;
        for (const auto& [topic, path] : source_topics_) names.push_back(topic);
        return names;
    }
    bool has_system(const std::string& system) const override {
        if (system == "kafka" || system == "append_store") return true;
        if (!is_optional_outside_system(system)) return false;
        use_system_(system);
        return true;
    }

private:
    const Scenario& s_;
    const std::map<std::string, std::string>& source_topics_;
    std::function<void(const std::string&)> use_system_;
};

void Loader::read_sink(const Object& o, engine::VertexSpec& vertex) {
    const engine::SinkRegistry& registry = engine::SinkRegistry::global();
    const Value name =
        o.require("sink", "the name of a registered sink kind (" + join(registry.names()) + ")");
    vertex.sink_kind = read_string(name);
    const engine::SinkKind* kind = registry.find(vertex.sink_kind);
    if (kind == nullptr) {
        name.fail("expected a registered sink kind (" + join(registry.names()) + "), found " +
                  in_quotes(vertex.sink_kind) + suggestion(vertex.sink_kind, registry.names()));
    }
    const std::string options_path = o.value().path() + "/options";
    json options = json::object();
    if (auto x = o.get("options")) {
        if (!x->get().is_object()) x->expected("an object (the sink kind's options)");
        options = x->get();
    }
    try {
        engine::SinkOptions reader(options);
        const LoaderSinkWorld world(
            s_, source_topics_, [this](const std::string& system) { use_outside_system(system); });
        vertex.sink = kind->configure(reader, vertex.id, world);
        reader.finish();
    } catch (const engine::SinkOptionsError& e) {
        throw ScenarioError(file_, options_path + e.path(), e.expected());
    }
    if (const std::string topic = vertex.sink->kafka_topic(); !topic.empty())
        sink_topics_.emplace(topic, o.value().path());
}

// A guarded upsert needs records that carry their row's own version: a CDC source's rows, reaching
// the sink through filters and key-preserving maps only (see engine/connectors/upsert_sink.h).
void Loader::check_version_source(const Object& o, const engine::VertexSpec& sink) {
    std::vector<const engine::VertexSpec*> pending{&sink};
    while (!pending.empty()) {
        const engine::VertexSpec* v = pending.back();
        pending.pop_back();
        const engine::MapSpec& m = v->map;
        const bool key_preserving_map = v->kind == engine::OperatorKind::map &&
                                        m.key_multiplier == 1 && m.key_offset == 0 &&
                                        m.key_modulus == 0;
        const bool ok = v == &sink || v->kind == engine::OperatorKind::cdc_source ||
                        v->kind == engine::OperatorKind::filter || key_preserving_map;
        if (!ok) {
            const std::string why =
                "expected \"version_guard\": false (the guard needs the source row's version on "
                "every record: a cdc_source reaching the sink through filters and key-preserving "
                "maps only; " +
                in_quotes(v->id) + " (" + to_string(v->kind) + ") is in between)";
            throw ScenarioError(file_, o.value().path() + "/options/version_guard", why);
        }
        for (const engine::InputEdge& edge : v->inputs) pending.push_back(s_.job.find(edge.from));
    }
}

// A sink that names records by their source identity (SinkConfig::source_identity_option) needs
// every record to have one: a kafka_source reaching the sink through maps and filters only. A keyed
// operator, window, join or dedup makes records of its own (engine/vocabulary/record.h), a union
// mixes sources, and a CDC row has no Kafka offset.
void Loader::check_source_identity_chain(const Object& o, const engine::VertexSpec& sink) {
    const std::string option = sink.sink->source_identity_option();
    if (option.empty()) return;
    const engine::VertexSpec* v = s_.job.find(sink.inputs.front().from);  // a sink reads one input
    while (v->kind == engine::OperatorKind::map || v->kind == engine::OperatorKind::filter) {
        v = s_.job.find(v->inputs.front().from);
    }
    if (v->kind == engine::OperatorKind::kafka_source) return;
    throw ScenarioError(
        file_, o.value().path() + "/options/" + engine::json_pointer_token(option),
        "expected the sink reached from a kafka_source through maps and filters only (it names "
        "each record by its source topic, partition and offset, which a " +
            std::string(to_string(v->kind)) + " does not pass on), found " + in_quotes(v->id) +
            " (" + to_string(v->kind) + ") in between");
}

// An input edge's "output": "late" reads the upstream vertex's late-data side output, which only
// some kinds have (engine::has_late_output).
std::string read_edge_output(const Value& v, const engine::VertexSpec& upstream) {
    const std::string output = read_string(v);
    if (output != engine::InputEdge::kLateOutput)
        v.expected("\"late\" (the late-data side output)");
    if (!engine::has_late_output(upstream.kind)) {
        v.fail(
            "expected an upstream vertex with a late-data side output (an event-time window), found " +
            in_quotes(upstream.id) + " (" + to_string(upstream.kind) + "), which has none");
    }
    return output;
}

// A dedup keeps the first record of a key: which one is first must not depend on the interleaving,
// so each key's records must reach it in their partition's order (a key lives in one partition): a
// kafka_source reaching it through forward filters and key-preserving maps only. That source has no
// idle splits either (see below).
void Loader::check_dedup_key_order(const Object& o, const engine::VertexSpec& dedup) {
    const engine::VertexSpec* v = s_.job.find(dedup.inputs.front().from);
    while (v->kind != engine::OperatorKind::kafka_source) {
        const engine::MapSpec& m = v->map;
        const bool key_preserving_map = v->kind == engine::OperatorKind::map &&
                                        m.key_multiplier == 1 && m.key_offset == 0 &&
                                        m.key_modulus == 0;
        const bool order_kept = (v->kind == engine::OperatorKind::filter || key_preserving_map) &&
                                v->inputs.size() == 1 &&
                                v->inputs.front().kind == engine::EdgeKind::forward;
        if (!order_kept) {
            throw ScenarioError(
                file_, o.value().path() + "/inputs",
                "expected a kafka_source reaching the dedup through forward filters and key-preserving "
                "maps only (each key's records in their partition's order), found " +
                    in_quotes(v->id) + " (" + to_string(v->kind) + ") in between");
        }
        v = s_.job.find(v->inputs.front().from);
    }
    // Idle splits: while a split is idle the combined watermark moves on without it, so its records
    // may arrive behind the watermark once it turns active again -- late input, which the dedup's
    // model cannot judge (engine/runtime/dedup_operator.h). Refused at the source's idle_timeout.
    if (v->watermarks && v->watermarks->idle_timeout) {
        const std::string program = o.value().path().substr(0, o.value().path().rfind('/'));
        throw ScenarioError(
            file_,
            program + "/" + std::to_string(s_.job.vertex_index(v->id)) + "/watermarks/idle_timeout",
            "expected no idle_timeout on a source that reaches a dedup: source " +
                in_quotes(v->id) + " reaches dedup " + in_quotes(dedup.id) + " (" +
                o.value().path() +
                "), whose model is exact only for in-bound input, and a split that turns active "
                "again after idling may be behind the watermark (engine/runtime/dedup_operator.h)");
    }
}

void Loader::read_vertex_inputs(const Object& o, engine::VertexSpec& vertex) {
    const Value inputs =
        o.require("inputs", "an array of inputs ({\"from\": vertex id, \"edge\": kind})");
    std::vector<std::string> earlier;
    for (const engine::VertexSpec& e : s_.job.vertices) {
        if (!is_sink(e.kind)) earlier.push_back(e.id);
    }
    for_each_element(inputs, "an array of inputs", [&](const Value& element) {
        const Object in(element, {"from", "edge", "output"},
                        "an object ({\"from\": vertex id, \"edge\": kind})");
        const Value from = in.require("from", "the id of an earlier vertex");
        engine::InputEdge edge;
        edge.from = read_string(from);
        const int32_t index = s_.job.vertex_index(edge.from);
        if (index < 0 || is_sink(s_.job.vertices[static_cast<size_t>(index)].kind)) {
            std::string why = suggestion(edge.from, earlier);
            if (index >= 0) {
                why = " (" + in_quotes(edge.from) + " is a sink and has no output)";
            } else if (edge.from == vertex.id) {
                why = " (a vertex cannot read itself)";
            } else if (listed_vertex_ids_.count(edge.from) != 0) {
                why = " (it is listed later; list vertices in topological order)";
            }
            from.fail("expected the id of an earlier, non-sink vertex (" + join(earlier) +
                      "), found " + in_quotes(edge.from) + why);
        }
        if (auto x = in.get("output"))
            edge.output = read_edge_output(*x, s_.job.vertices[static_cast<size_t>(index)]);
        for (const engine::InputEdge& other : vertex.inputs) {
            if (other.from == edge.from && other.output == edge.output) {
                from.fail("vertex " + in_quotes(edge.from) + " is already an input");
            }
        }
        if (auto x = in.get("edge")) edge.kind = read_enum(*x, kAllEdges, "an edge kind");
        const Value edge_at = in.has("edge")
                                  ? *in.get("edge")
                                  : Value(element.get(), element.path() + "/edge", file_);
        const std::string found =
            in_quotes(to_string(edge.kind)) + (in.has("edge") ? "" : " (the default)");
        if (is_keyed(vertex.kind) && edge.kind != engine::EdgeKind::hash) {
            edge_at.fail(std::string("expected \"hash\" (a ") + to_string(vertex.kind) +
                         " vertex reads keyed input), found " + found);
        }
        const engine::VertexSpec& upstream = s_.job.vertices[static_cast<size_t>(index)];
        if (edge.kind == engine::EdgeKind::forward && upstream.parallelism != vertex.parallelism) {
            edge_at.fail("a forward edge needs equal parallelism on both ends, found " + found +
                         " from " + in_quotes(upstream.id) + " (parallelism " +
                         std::to_string(upstream.parallelism) + ") to " + in_quotes(vertex.id) +
                         " (parallelism " + std::to_string(vertex.parallelism) +
                         "); expected equal parallelism or a \"hash\" or \"rebalance\" edge");
        }
        vertex.inputs.push_back(edge);
    });
    if (vertex.inputs.empty()) inputs.fail("expected at least one input, found an empty array");
    if (vertex.kind == engine::OperatorKind::union_all && vertex.inputs.size() < 2) {
        inputs.fail("expected at least two inputs for a union, found " +
                    std::to_string(vertex.inputs.size()));
    }
    if (vertex.kind == engine::OperatorKind::join && vertex.inputs.size() != 2) {
        inputs.fail(
            "expected exactly two inputs for a join (the left side first, then the right), found " +
            std::to_string(vertex.inputs.size()));
    }
    if (vertex.kind != engine::OperatorKind::union_all &&
        vertex.kind != engine::OperatorKind::join && vertex.inputs.size() > 1) {
        inputs.fail("expected one input (only a union or a join reads several), found " +
                    std::to_string(vertex.inputs.size()));
    }
}

// "" when `job` fits the cluster's slots; else what its slot sharing groups need, against what
// there is.
std::string slot_shortage(const engine::JobSpec& job, const WorldSpec& world) {
    const int32_t slots = world.task_managers * world.slots_per_task_manager;
    const int32_t needed = engine::slots_needed(job);
    if (needed <= slots) return "";
    std::string groups;
    for (const engine::SlotSharingGroupNeed& g : engine::slot_sharing_groups(job)) {
        groups += (groups.empty() ? "" : ", ") + in_quotes(g.group) + " " + std::to_string(g.slots);
    }
    return "expected a job that fits the slots of the task managers (" +
           std::to_string(world.task_managers) + " x " +
           std::to_string(world.slots_per_task_manager) + " = " + std::to_string(slots) +
           "), found its slot sharing groups need " + std::to_string(needed) + " (" + groups +
           ": each its largest parallelism)";
}

void Loader::check_vertices(const Value& v) {
    const auto& vertices = s_.job.vertices;
    if (vertices.empty()) v.fail("expected at least one vertex, found an empty array");
    if (!is_sink(vertices.back().kind)) {
        v.fail("expected the job to end in a sink (a vertex of kind \"sink\"), found none");
    }
    if (const std::string shortage = slot_shortage(s_.job, s_.world); !shortage.empty())
        v.fail(shortage);
    std::map<std::string, std::string> claimed;  // what a sink claims for itself -> its vertex path
    for (size_t i = 0; i < vertices.size(); ++i) {
        if (vertices[i].kind != engine::OperatorKind::sink) continue;
        const std::string path = v.path() + "/" + std::to_string(i);
        for (const std::string& claim : vertices[i].sink->claims()) {
            if (auto it = claimed.find(claim); it != claimed.end()) {
                throw ScenarioError(
                    file_, path + "/options",
                    "expected a sink that shares nothing with the others, found it uses " + claim +
                        " as " + it->second + " does");
            }
            claimed.emplace(claim, path);
        }
    }
}

void Loader::read_checkpointing(const Value& v) {
    const Object o(v, {"enabled", "mode", "interval", "timeout", "min_pause", "max_concurrent",
                       "tolerable_failures", "retained", "unaligned", "aligned_checkpoint_timeout",
                       "retention_discards_savepoints", "queued_barriers_wait"});
    engine::CheckpointConfig& c = s_.job.checkpointing;
    if (auto x = o.get("enabled")) c.enabled = read_bool(*x);
    if (auto x = o.get("mode")) c.mode = read_enum(*x, kAllModes, "a checkpointing mode");
    if (auto x = o.get("interval")) c.interval = read_duration(*x, false);
    if (auto x = o.get("timeout")) c.timeout = read_duration(*x, false);
    if (auto x = o.get("min_pause")) c.min_pause = read_duration(*x, true);
    if (auto x = o.get("max_concurrent")) c.max_concurrent = read_int32(*x, kPositive32);
    if (auto x = o.get("tolerable_failures")) c.tolerable_failures = read_int32(*x, kNonNegative32);
    if (auto x = o.get("retained")) c.retained = read_int32(*x, kPositive32);
    if (auto x = o.get("retention_discards_savepoints"))
        c.retention_discards_savepoints = read_bool(*x);
    if (auto x = o.get("unaligned")) {
        c.unaligned = read_bool(*x);
        if (c.unaligned && c.mode != engine::CheckpointingMode::exactly_once) {
            x->fail(
                "expected unaligned only with mode \"exactly_once\" (at-least-once checkpoints never align), found mode " +
                in_quotes(engine::to_string(c.mode)));
        }
    }
    if (auto x = o.get("aligned_checkpoint_timeout")) {
        c.aligned_checkpoint_timeout = read_duration(*x, true);
        if (c.aligned_checkpoint_timeout > sim::Duration::zero() && !c.unaligned) {
            x->fail(
                "expected aligned_checkpoint_timeout only with \"unaligned\": true (as in Flink, the timeout switches "
                "an aligned checkpoint to unaligned)");
        }
    }
    if (auto x = o.get("queued_barriers_wait")) {
        c.queued_barriers_wait = read_bool(*x);
        if (c.queued_barriers_wait && c.aligned_checkpoint_timeout == sim::Duration::zero()) {
            x->fail(
                "expected queued_barriers_wait only with an aligned_checkpoint_timeout (it keeps that timeout from "
                "reaching queued barriers)");
        }
    }
}

void Loader::read_restart(const Value& v) {
    const Object o(v, {"max_attempts", "delay"});
    if (auto x = o.get("max_attempts"))
        s_.job.restart.max_attempts = read_int32(*x, kNonNegative32);
    if (auto x = o.get("delay")) s_.job.restart.delay = read_duration(*x, true);
}

void Loader::read_runtime(const Value& v) {
    const Object o(v, {"record_cost", "buffer_timeout", "buffer_records", "channel_credits",
                       "source_poll_interval", "heartbeat_interval", "heartbeat_timeout",
                       "deploy_timeout", "commit_retry_delay", "sources_read_after_stop",
                       "finished_sources_read_again", "sinks_drop_removed_state",
                       "tasks_finish_before_final_checkpoint", "restored_watermark_max"});
    engine::RuntimeConfig& r = s_.job.runtime;
    if (auto x = o.get("record_cost")) r.record_cost = read_duration(*x, true);
    if (auto x = o.get("buffer_timeout")) r.buffer_timeout = read_duration(*x, true);
    if (auto x = o.get("buffer_records")) r.buffer_records = read_int32(*x, kPositive32);
    if (auto x = o.get("channel_credits")) r.channel_credits = read_int32(*x, kPositive32);
    if (auto x = o.get("source_poll_interval")) r.source_poll_interval = read_duration(*x, false);
    if (auto x = o.get("heartbeat_interval")) r.heartbeat_interval = read_duration(*x, false);
    if (auto x = o.get("heartbeat_timeout")) r.heartbeat_timeout = read_duration(*x, false);
    if (auto x = o.get("deploy_timeout")) r.deploy_timeout = read_duration(*x, false);
    if (auto x = o.get("commit_retry_delay")) r.commit_retry_delay = read_duration(*x, false);
    if (auto x = o.get("sources_read_after_stop")) r.sources_read_after_stop = read_bool(*x);
    if (auto x = o.get("finished_sources_read_again"))
        r.finished_sources_read_again = read_bool(*x);
    if (auto x = o.get("sinks_drop_removed_state")) r.sinks_drop_removed_state = read_bool(*x);
    if (auto x = o.get("tasks_finish_before_final_checkpoint"))
        r.tasks_finish_before_final_checkpoint = read_bool(*x);
    if (auto x = o.get("restored_watermark_max")) r.restored_watermark_max = read_bool(*x);
    if (r.heartbeat_timeout <= r.heartbeat_interval) {
        const Value where =
            o.has("heartbeat_timeout") ? *o.get("heartbeat_timeout") : *o.get("heartbeat_interval");
        where.fail("expected heartbeat_timeout above heartbeat_interval, found " +
                   format_duration(r.heartbeat_timeout) + " and " +
                   format_duration(r.heartbeat_interval));
    }
}

}  // namespace eosim::scenarios::loading
