// The loader's "savepoints" and "deployments" sections (scenarios/loader/loader.h), and
// Scenario::deployment_job, which applies a deployment's changes.
#include "engine/connectors/kafka_sink.h"
#include "engine/vocabulary/protocol_points.h"
#include "scenarios/loader/loader.h"

namespace eosim::scenarios {

engine::JobSpec Scenario::deployment_job(size_t index) const {
    engine::JobSpec deployed = job;
    for (size_t d = 0; d < index && d < deployments.size(); ++d) {
        const DeploymentSpec& change = deployments[d];
        if (change.job_vertices) deployed.vertices = *change.job_vertices;
        for (engine::VertexSpec& v : deployed.vertices) {
            if (change.parallelism) v.parallelism = *change.parallelism;
            if (auto p = change.vertex_parallelism.find(v.id); p != change.vertex_parallelism.end())
                v.parallelism = p->second;
            if (auto u = change.uids.find(v.id); u != change.uids.end()) v.uid = u->second;
        }
        if (change.max_parallelism) deployed.max_parallelism = *change.max_parallelism;
        if (change.state_backend) deployed.state_backend = *change.state_backend;
    }
    if (index > 0) deployed.name = job.name + "-v" + std::to_string(index + 1);
    return deployed;
}

engine::JobSpec Scenario::verification_job(size_t index) const {
    engine::JobSpec verifying = deployment_job(index);
    verifying.name += "-verification";
    for (engine::VertexSpec& v : verifying.vertices) {
        const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get());
        if (kafka == nullptr) continue;  // the loader allows Kafka sinks only
        engine::KafkaSinkOptions options = kafka->options();
        options.topic = verification_topic(options.topic, index);
        options.transactional_id_prefix += "-verification";
        v.sink = std::make_shared<engine::KafkaSinkConfig>(std::move(options));
    }
    return verifying;
}

namespace loading {

void Loader::read_savepoints(const Value& v) {
    if (s_.job.checkpointing.unaligned) {
        v.fail(
            "expected no savepoints in a job with unaligned checkpoints: a savepoint is aligned, and eosim "
            "takes savepoints of aligned jobs only");
    }
    for_each_element(
        v,
        "an array of savepoints ({\"at\": time} or {\"at_point\": {\"point\": name, \"occurrence\": k}})",
        [&](const Value& element) {
            const Object o(element, {"at", "at_point", "name"},
                           "an object (a savepoint: \"at\" or \"at_point\", and a \"name\")");
            SavepointSpec savepoint;
            if (o.has("at") == o.has("at_point")) {
                element.fail(
                    "expected either \"at\" (a time) or \"at_point\" ({\"point\": name, \"occurrence\": k})");
            }
            if (auto x = o.get("at")) {
                savepoint.at = read_duration(*x, true);
                fault_times_.emplace_back(x->path(), sim::Time::zero() + *savepoint.at);
            }
            if (auto x = o.get("at_point")) {
                const Object p(*x, {"point", "occurrence"},
                               "an object ({\"point\": name, \"occurrence\": k})");
                std::vector<std::string> points;
                for (std::string_view point : engine::points::kAll) points.emplace_back(point);
                const Value point = p.require("point", "a protocol point name");
                const std::string name =
                    point.get().is_string() ? point.get().get<std::string>() : "";
                if (std::find(points.begin(), points.end(), name) == points.end()) {
                    point.fail("expected a protocol point, one of: " + join(points) + "; found " +
                               describe(point.get()) + suggestion(name, points));
                }
                savepoint.at_point = name;
                if (auto n = p.get("occurrence"))
                    savepoint.occurrence = read_int32(*n, kPositive32);
            }
            if (auto x = o.get("name")) {
                savepoint.name = read_string(*x);
                if (savepoint.name.empty()) x->expected("a non-empty name");
                if (!savepoint.at)
                    x->fail(
                        "expected a named savepoint at a time (\"at\"): a later deployment names it");
                for (const SavepointSpec& other : s_.savepoints) {
                    if (other.name == savepoint.name)
                        x->fail("duplicate savepoint name " + in_quotes(savepoint.name));
                }
            }
            s_.savepoints.push_back(std::move(savepoint));
        });
}

// Every deployment's "from" (read with the deployments) names a savepoint that is taken before the
// deployment starts: a named one at a time before its "at", in a deployment stopped with a
// savepoint.
void Loader::check_restore_sources() {
    for (size_t d = 0; d < s_.deployments.size(); ++d) {
        const RestoreSource& from = s_.deployments[d].from;
        if (from.kind != RestoreSource::Kind::named_savepoint) continue;
        const std::string path = "/deployments/" + std::to_string(d) + "/from";
        auto named = std::find_if(s_.savepoints.begin(), s_.savepoints.end(),
                                  [&](const SavepointSpec& sp) { return sp.name == from.name; });
        if (named == s_.savepoints.end()) {
            std::vector<std::string> names;
            for (const SavepointSpec& sp : s_.savepoints) {
                if (!sp.name.empty()) names.push_back(sp.name);
            }
            throw ScenarioError(
                file_, path,
                "expected a savepoint named in /savepoints" +
                    std::string(names.empty() ? " (none is)" : ", one of: " + join(names)) +
                    "; found " + in_quotes(from.name) + suggestion(from.name, names));
        }
        if (*named->at >= s_.deployments[d].at) {
            throw ScenarioError(file_, path,
                                "expected a savepoint taken before this deployment starts (" +
                                    format_duration(s_.deployments[d].at) + "), found " +
                                    in_quotes(from.name) + " at " + format_duration(*named->at));
        }
        // The deployment it is taken in must not be cancelled before the savepoint could complete.
        for (size_t e = 0; e < s_.deployments.size(); ++e) {
            if (s_.deployments[e].at > *named->at) break;
            if (s_.deployments[e].at == *named->at) {
                throw ScenarioError(file_, "/savepoints",
                                    "expected savepoint " + in_quotes(from.name) +
                                        " at another time than a deployment's start");
            }
        }
    }
}

RestoreSource Loader::read_restore_source(const Value& v, size_t index) {
    RestoreSource from;
    from.text = read_string(v);
    const std::string& text = from.text;
    const std::string after = "savepoint after v";
    if (text == "latest checkpoint") {
        from.kind = RestoreSource::Kind::latest_checkpoint;
        return from;
    }
    if (text == "nothing") {
        from.kind = RestoreSource::Kind::nothing;
        return from;
    }
    if (text.starts_with("checkpoint")) {
        from.kind = RestoreSource::Kind::retained_checkpoint;
        from.checkpoint_id =
            read_checkpoint_id(v, text.substr(std::string("checkpoint").size()), index);
        return from;
    }
    if (text.starts_with(after)) {
        const std::string number = text.substr(after.size());
        const bool digits =
            !number.empty() && number.size() < 6 &&
            std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
        const size_t k = digits ? static_cast<size_t>(std::stoul(number)) : 0;
        // Deployment `index` (0-based among the later ones) is v<index + 2>; it may name v1 ..
        // v<index + 1>.
        if (k < 1 || k > index + 1) {
            v.expected("\"savepoint after v<k>\" with k from 1 to " + std::to_string(index + 1) +
                       " (a deployment before this one, v" + std::to_string(index + 2) + ")");
        }
        // v<k> must have been stopped with a savepoint: the deployment after it does not start from
        // "latest checkpoint".
        if (k - 1 < index && s_.deployments[k - 1].from.cancels_previous()) {
            v.fail("expected a deployment stopped with a savepoint: v" + number +
                   " was cancelled (the deployment after it starts from " +
                   in_quotes(s_.deployments[k - 1].from.text) + ")");
        }
        from.kind = RestoreSource::Kind::stop_savepoint;
        from.deployment = k - 1;
        return from;
    }
    if (text.starts_with("savepoint ")) {
        from.kind = RestoreSource::Kind::named_savepoint;
        from.name = text.substr(std::string("savepoint ").size());
        return from;  // checked once the savepoints are read (check_restore_sources)
    }
    v.expected(
        "\"savepoint after v<k>\", \"savepoint <name>\" (a named savepoint), \"latest checkpoint\", \"checkpoint <N>\" (a "
        "retained checkpoint's id) or \"nothing\" (a fresh start without state)");
    return from;
}

// The N of "checkpoint <N>" (`rest` is what follows "checkpoint"): a retained checkpoint of the
// deployment before this one, which must take checkpoints.
int64_t Loader::read_checkpoint_id(const Value& v, const std::string& rest, size_t index) {
    const std::string number = rest.starts_with(" ") ? rest.substr(1) : std::string();
    const bool digits =
        !number.empty() && number.size() < 10 && number.front() != '0' &&
        std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
        v.expected(
            "\"checkpoint <N>\" with N a checkpoint id (a positive integer, as in chk-N), e.g. \"checkpoint 12\"");
    // The deployment cancelled for this one, v<index + 1>, must take checkpoints (it retains at
    // least one then).
    const std::string previous = "v" + std::to_string(index + 1);
    if (!s_.deployment_job(index).checkpointing.enabled) {
        v.fail("expected a checkpoint " + previous + " retains, found " +
               in_quotes(read_string(v)) + ": " + previous +
               " takes no checkpoints (checkpointing.enabled false)");
    }
    return std::stoll(number);
}

void Loader::read_deployments(const Value& v) {
    if (s_.job.checkpointing.unaligned) {
        v.fail(
            "expected no deployments in a job with unaligned checkpoints: a savepoint is aligned, and eosim "
            "takes savepoints of aligned jobs only");
    }
    const int32_t slots = s_.world.task_managers * s_.world.slots_per_task_manager;
    Duration last = Duration::zero();
    for_each_element(v, "an array of deployments", [&](const Value& element) {
        const Object o(
            element,
            {"at", "drain", "from", "parallelism", "vertices", "job_vertices", "max_parallelism",
             "state_backend", "incremental", "clip_on_rescale", "allow_non_restored_state",
             "verification", "verification_for"},
            "an object (a deployment: {\"at\": time of the previous one's stop-with-savepoint, ...})");
        DeploymentSpec d;
        const Value at =
            o.require("at", "a time (when the previous deployment is stopped with a savepoint)");
        d.at = read_duration(at, false);
        if (d.at <= last)
            at.expected("a time after the previous deployment's (" + format_duration(last) + ")");
        last = d.at;
        fault_times_.emplace_back(at.path(), sim::Time::zero() + d.at);
        if (auto x = o.get("drain")) d.drain = read_bool(*x);
        d.from.deployment =
            s_.deployments.size();  // the default: the previous deployment's final savepoint
        if (auto x = o.get("from")) {
            d.from = read_restore_source(*x, s_.deployments.size());
            if (d.from.cancels_previous() && o.has("drain")) {
                x->fail("expected no \"drain\" with \"from\": " + in_quotes(d.from.text) +
                        " (the previous deployment is cancelled, not stopped)");
            }
        }
        auto parallelism = [&](const Value& value) {
            const int32_t p = read_int32(value, kPositive32);
            if (p > slots)
                value.expected("at most the slots of the task managers (" + std::to_string(slots) +
                               ")");
            return p;
        };
        if (auto x = o.get("job_vertices")) {
            if (o.has("parallelism") || o.has("vertices")) {
                x->fail(
                    "expected either \"job_vertices\" (the new program's whole vertex list, each with its parallelism) or "
                    "\"parallelism\"/\"vertices\" (changes to the previous deployment's vertices), not both");
            }
            d.job_vertices = read_deployment_vertices(*x);
        }
        if (auto x = o.get("parallelism")) d.parallelism = parallelism(*x);
        if (auto x = o.get("vertices")) {
            std::vector<std::string> ids;
            for (const engine::VertexSpec& vertex :
                 s_.deployment_job(s_.deployments.size()).vertices)
                ids.push_back(vertex.id);
            for_each_element(
                *x,
                "an array of vertex changes ({\"id\": vertex id, \"parallelism\": n, \"uid\": uid})",
                [&](const Value& change) {
                    const Object c(
                        change, {"id", "parallelism", "uid"},
                        "an object (a vertex change: {\"id\", \"parallelism\", \"uid\"})");
                    const Value id = c.require("id", "the id of a vertex of /job/vertices");
                    const std::string name = read_string(id);
                    if (std::find(ids.begin(), ids.end(), name) == ids.end()) {
                        id.fail("expected a vertex of /job/vertices, one of: " + join(ids) +
                                "; found " + describe(id.get()) + suggestion(name, ids));
                    }
                    if (d.vertex_parallelism.contains(name) || d.uids.contains(name))
                        id.fail("duplicate vertex " + in_quotes(name));
                    if (auto p = c.get("parallelism")) d.vertex_parallelism[name] = parallelism(*p);
                    if (auto u = c.get("uid")) d.uids[name] = read_string(*u);
                });
        }
        if (auto x = o.get("max_parallelism")) d.max_parallelism = read_int32(*x, kPositive32);
        d.state_backend = read_state_backend(o);
        if (auto x = o.get("allow_non_restored_state")) d.allow_non_restored_state = read_bool(*x);
        if (auto x = o.get("verification")) {
            d.verification = read_bool(*x);
            if (d.verification && !d.from.text.empty()) {
                x->fail(
                    "expected no verification job for a deployment with \"from\" (a verification job starts from the savepoint that "
                    "stops the previous deployment)");
            }
        }
        if (auto x = o.get("verification_for")) {
            if (!d.verification)
                x->fail("expected no verification_for without \"verification\": true");
            d.verification_for = read_duration(*x, false);
        }
        const bool verification = d.verification;
        const bool from_checkpoint = d.from.from_checkpoint();
        s_.deployments.push_back(std::move(d));
        if (from_checkpoint) {
            // A retained checkpoint keeps the backend's own format: incremental RocksDB files
            // restore only into incremental RocksDB (full snapshots are canonical and restore
            // anywhere).
            const engine::StateBackendOptions before =
                s_.deployment_job(s_.deployments.size() - 1).state_backend;
            const engine::StateBackendOptions after =
                s_.deployment_job(s_.deployments.size()).state_backend;
            const auto incremental = [](const engine::StateBackendOptions& b) {
                return b.kind == engine::StateBackendKind::rocksdb && b.incremental;
            };
            if (incremental(before) && !incremental(after)) {
                element.fail(
                    "expected \"state_backend\": \"rocksdb\" with \"incremental\": true when starting from a retained checkpoint of a "
                    "deployment on incremental RocksDB (a retained checkpoint keeps its native files; only savepoints are canonical)");
            }
        }
        if (verification) add_verification_topics(element);
        // The changed job must still fit: parallelism within max parallelism.
        const engine::JobSpec deployed = s_.deployment_job(s_.deployments.size());
        for (const engine::VertexSpec& vertex : deployed.vertices) {
            if (vertex.parallelism > deployed.max_parallelism) {
                element.fail("expected every vertex's parallelism within max_parallelism (" +
                             std::to_string(deployed.max_parallelism) + "), found " +
                             in_quotes(vertex.id) + " at " + std::to_string(vertex.parallelism));
            }
        }
    });
}

// "upgrade_swarm": the deployments drawn per seed (scenarios/upgrade_swarm.h). Read after the job;
// one placeholder deployment per window (at its start, nothing changed) stands for the draw, so
// node names of every deployment resolve and the checks of "deployments" apply.
void Loader::read_upgrade_swarm(const Value& v) {
    if (s_.job.checkpointing.unaligned)
        v.fail(
            "expected no upgrade_swarm in a job with unaligned checkpoints (savepoints are aligned)");
    const Object o(
        v, {"at", "parallelism", "backends", "rollback", "latest_checkpoint"},
        "an object (an upgrade swarm: \"at\" windows, \"parallelism\", \"backends\", \"rollback\", \"latest_checkpoint\")");
    UpgradeSwarm swarm;
    const int32_t slots = s_.world.task_managers * s_.world.slots_per_task_manager;
    Duration last = Duration::zero();
    for_each_element(o.require("at", "an array of windows [from, to], one per later deployment"),
                     "an array of windows [from, to]", [&](const Value& window) {
                         if (!window.get().is_array() || window.get().size() != 2)
                             window.expected("a window [from, to] (two times)");
                         DurationRange range{read_duration(window.child(0), false),
                                             read_duration(window.child(1), false)};
                         if (range.max < range.min)
                             window.expected("a window whose end is not before its start");
                         if (range.min <= last)
                             window.expected("a window after the previous one's end (" +
                                             format_duration(last) + ")");
                         last = range.max;
                         fault_times_.emplace_back(window.path(), sim::Time::zero() + range.max);
                         swarm.windows.push_back(range);
                     });
    if (swarm.windows.empty()) o.get("at")->expected("at least one window");
    const Value parallelism =
        o.require("parallelism", "a range [min, max] of every non-sink vertex's parallelism");
    if (!parallelism.get().is_array() || parallelism.get().size() != 2)
        parallelism.expected("a range [min, max]");
    swarm.parallelism_min = read_int32(parallelism.child(0), kPositive32);
    swarm.parallelism_max = read_int32(parallelism.child(1), kPositive32);
    if (swarm.parallelism_max < swarm.parallelism_min)
        parallelism.expected("a range [min, max] with min <= max");
    if (swarm.parallelism_max > std::min(slots, s_.job.max_parallelism)) {
        parallelism.child(1).expected("at most the slots of the task managers (" +
                                      std::to_string(slots) + ") and max_parallelism (" +
                                      std::to_string(s_.job.max_parallelism) + ")");
    }
    for (const engine::VertexSpec& vertex : s_.job.vertices) {
        if (vertex.kind == engine::OperatorKind::sink) continue;
        if (vertex.uid.empty()) {
            v.fail(
                "expected a \"uid\" on every stateful vertex of /job/vertices in an upgrade swarm (a rollback restores by uid), found none on " +
                in_quotes(vertex.id));
        }
    }
    for (const engine::VertexSpec& vertex : s_.job.vertices) {
        for (const engine::InputEdge& edge : vertex.inputs) {
            if (vertex.kind == engine::OperatorKind::sink &&
                edge.kind == engine::EdgeKind::forward) {
                v.fail(
                    "expected no forward edge into a sink in an upgrade swarm (its parallelism stays, the others' are drawn), found one into " +
                    in_quotes(vertex.id));
            }
        }
    }
    for_each_element(o.require("backends", "an array of state backends"),
                     "an array of \"heap\", \"rocksdb\" or \"rocksdb_incremental\"",
                     [&](const Value& backend) {
                         const std::string name =
                             backend.get().is_string() ? backend.get().get<std::string>() : "";
                         engine::StateBackendOptions options;
                         if (name == "rocksdb" || name == "rocksdb_incremental")
                             options.kind = engine::StateBackendKind::rocksdb;
                         options.incremental = name == "rocksdb_incremental";
                         if (name != "heap" && name != "rocksdb" && name != "rocksdb_incremental") {
                             backend.expected("\"heap\", \"rocksdb\" or \"rocksdb_incremental\"");
                         }
                         swarm.backends.push_back(options);
                     });
    if (swarm.backends.empty()) o.get("backends")->expected("at least one state backend");
    if (auto x = o.get("rollback")) swarm.rollback = read_ratio(*x);
    if (auto x = o.get("latest_checkpoint")) swarm.latest_checkpoint = read_ratio(*x);
    for (const DurationRange& window : swarm.windows) {
        DeploymentSpec placeholder;
        placeholder.at = window.min;
        placeholder.from.deployment = s_.deployments.size();
        s_.deployments.push_back(std::move(placeholder));
    }
    s_.upgrade_swarm = std::move(swarm);
}

// A verification job's sinks write to throw-away topics next to their real ones (same partitions),
// so its sinks must be Kafka sinks.
void Loader::add_verification_topics(const Value& v) {
    const size_t index = s_.deployments.size();
    for (const engine::VertexSpec& vertex : s_.deployment_job(index).vertices) {
        if (vertex.kind != engine::OperatorKind::sink) continue;
        const std::string topic = vertex.sink->kafka_topic();
        if (topic.empty() ||
            dynamic_cast<const engine::KafkaSinkConfig*>(vertex.sink.get()) == nullptr) {
            v.child("verification")
                .fail(
                    "expected a job whose sinks are Kafka sinks for a verification job (it writes to "
                    "throw-away topics), found sink " +
                    in_quotes(vertex.id) + " of kind " + in_quotes(vertex.sink_kind));
        }
        const std::string shadow = Scenario::verification_topic(topic, index);
        if (topic_exists(shadow)) {
            v.child("verification")
                .fail("expected no topic " + in_quotes(shadow) +
                      " in /world/topics (the verification job's own)");
        }
        int32_t partitions = 1;
        for (const TopicSpec& t : s_.world.topics) {
            if (t.name == topic) partitions = t.partitions;
        }
        s_.world.topics.push_back(TopicSpec{shadow, partitions});
    }
}

// A deployment's own vertex list: read and checked as /job/vertices is (each vertex's keys, inputs
// in topological order, sinks last), into a list of its own.
std::vector<engine::VertexSpec> Loader::read_deployment_vertices(const Value& v) {
    std::vector<engine::VertexSpec> job_vertices;
    std::set<std::string> job_listed;
    std::swap(s_.job.vertices, job_vertices);
    std::swap(listed_vertex_ids_, job_listed);
    const auto put_back = [&] {
        std::swap(s_.job.vertices, job_vertices);
        std::swap(listed_vertex_ids_, job_listed);
    };
    try {
        if (v.get().is_array()) {
            for (const json& vertex : v.get()) {
                if (vertex.is_object() && vertex.contains("id") && vertex["id"].is_string())
                    listed_vertex_ids_.insert(vertex["id"].get<std::string>());
            }
        }
        for_each_element(v, "an array of vertices (the new program's, as /job/vertices)",
                         [&](const Value& element) { read_vertex(element); });
        check_vertices(v);
    } catch (...) {
        put_back();
        throw;
    }
    put_back();
    return job_vertices;  // now the deployment's
}

}  // namespace loading
}  // namespace eosim::scenarios
