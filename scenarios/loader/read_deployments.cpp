// The loader's "savepoints" and "deployments" sections (scenarios/loader/loader.h), and
// Scenario::deployment_job, which applies a deployment's changes.
#include "engine/connectors/kafka_sink.h"
#include "engine/runtime/protocol_points.h"
#include "scenarios/loader/loader.h"

namespace eosim::scenarios {

engine::JobSpec Scenario::deployment_job(size_t index) const {
    engine::JobSpec deployed = job;
    for (size_t d = 0; d < index && d < deployments.size(); ++d) {
        const DeploymentSpec& change = deployments[d];
        if (change.job_vertices) deployed.vertices = *change.job_vertices;
        for (engine::VertexSpec& v : deployed.vertices) {
            if (change.parallelism) v.parallelism = *change.parallelism;
            if (auto p = change.vertex_parallelism.find(v.id); p != change.vertex_parallelism.end()) v.parallelism = p->second;
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
        v.fail("expected no savepoints in a job with unaligned checkpoints: a savepoint is aligned, and eosim "
               "takes savepoints of aligned jobs only");
    }
    for_each_element(v, "an array of savepoints ({\"at\": time} or {\"at_point\": {\"point\": name, \"occurrence\": k}})",
                     [&](const Value& element) {
                         const Object o(element, {"at", "at_point"}, "an object (a savepoint: \"at\" or \"at_point\")");
                         SavepointSpec savepoint;
                         if (o.has("at") == o.has("at_point")) {
                             element.fail("expected either \"at\" (a time) or \"at_point\" ({\"point\": name, \"occurrence\": k})");
                         }
                         if (auto x = o.get("at")) {
                             savepoint.at = read_duration(*x, true);
                             fault_times_.emplace_back(x->path(), sim::Time::zero() + *savepoint.at);
                         }
                         if (auto x = o.get("at_point")) {
                             const Object p(*x, {"point", "occurrence"}, "an object ({\"point\": name, \"occurrence\": k})");
                             std::vector<std::string> points;
                             for (std::string_view point : engine::points::kAll) points.emplace_back(point);
                             const Value point = p.require("point", "a protocol point name");
                             const std::string name = point.get().is_string() ? point.get().get<std::string>() : "";
                             if (std::find(points.begin(), points.end(), name) == points.end()) {
                                 point.fail("expected a protocol point, one of: " + join(points) + "; found " + describe(point.get()) +
                                            suggestion(name, points));
                             }
                             savepoint.at_point = name;
                             if (auto n = p.get("occurrence")) savepoint.occurrence = read_int32(*n, kPositive32);
                         }
                         s_.savepoints.push_back(std::move(savepoint));
                     });
}

void Loader::read_deployments(const Value& v) {
    if (s_.job.checkpointing.unaligned) {
        v.fail("expected no deployments in a job with unaligned checkpoints: a savepoint is aligned, and eosim "
               "takes savepoints of aligned jobs only");
    }
    const int32_t slots = s_.world.task_managers * s_.world.slots_per_task_manager;
    Duration last = Duration::zero();
    for_each_element(v, "an array of deployments", [&](const Value& element) {
        const Object o(element, {"at", "drain", "parallelism", "vertices", "job_vertices", "max_parallelism", "state_backend",
                                  "incremental", "allow_non_restored_state", "verification", "verification_for"},
                       "an object (a deployment: {\"at\": time of the previous one's stop-with-savepoint, ...})");
        DeploymentSpec d;
        const Value at = o.require("at", "a time (when the previous deployment is stopped with a savepoint)");
        d.at = read_duration(at, false);
        if (d.at <= last) at.expected("a time after the previous deployment's (" + format_duration(last) + ")");
        last = d.at;
        fault_times_.emplace_back(at.path(), sim::Time::zero() + d.at);
        if (auto x = o.get("drain")) d.drain = read_bool(*x);
        auto parallelism = [&](const Value& value) {
            const int32_t p = read_int32(value, kPositive32);
            if (p > slots) value.expected("at most the slots of the task managers (" + std::to_string(slots) + ")");
            return p;
        };
        if (auto x = o.get("job_vertices")) {
            if (o.has("parallelism") || o.has("vertices")) {
                x->fail("expected either \"job_vertices\" (the new program's whole vertex list, each with its parallelism) or "
                        "\"parallelism\"/\"vertices\" (changes to the previous deployment's vertices), not both");
            }
            d.job_vertices = read_deployment_vertices(*x);
        }
        if (auto x = o.get("parallelism")) d.parallelism = parallelism(*x);
        if (auto x = o.get("vertices")) {
            std::vector<std::string> ids;
            for (const engine::VertexSpec& vertex : s_.deployment_job(s_.deployments.size()).vertices) ids.push_back(vertex.id);
            for_each_element(*x, "an array of vertex changes ({\"id\": vertex id, \"parallelism\": n, \"uid\": uid})", [&](const Value& change) {
                const Object c(change, {"id", "parallelism", "uid"}, "an object (a vertex change: {\"id\", \"parallelism\", \"uid\"})");
                const Value id = c.require("id", "the id of a vertex of /job/vertices");
                const std::string name = read_string(id);
                if (std::find(ids.begin(), ids.end(), name) == ids.end()) {
                    id.fail("expected a vertex of /job/vertices, one of: " + join(ids) + "; found " + describe(id.get()) + suggestion(name, ids));
                }
                if (d.vertex_parallelism.contains(name) || d.uids.contains(name)) id.fail("duplicate vertex " + in_quotes(name));
                if (auto p = c.get("parallelism")) d.vertex_parallelism[name] = parallelism(*p);
                if (auto u = c.get("uid")) d.uids[name] = read_string(*u);
            });
        }
        if (auto x = o.get("max_parallelism")) d.max_parallelism = read_int32(*x, kPositive32);
        d.state_backend = read_state_backend(o);
        if (auto x = o.get("allow_non_restored_state")) d.allow_non_restored_state = read_bool(*x);
        if (auto x = o.get("verification")) d.verification = read_bool(*x);
        if (auto x = o.get("verification_for")) {
            if (!d.verification) x->fail("expected no verification_for without \"verification\": true");
            d.verification_for = read_duration(*x, false);
        }
        const bool verification = d.verification;
        s_.deployments.push_back(std::move(d));
        if (verification) add_verification_topics(element);
        // The changed job must still fit: parallelism within max parallelism.
        const engine::JobSpec deployed = s_.deployment_job(s_.deployments.size());
        for (const engine::VertexSpec& vertex : deployed.vertices) {
            if (vertex.parallelism > deployed.max_parallelism) {
                element.fail("expected every vertex's parallelism within max_parallelism (" + std::to_string(deployed.max_parallelism) +
                             "), found " + in_quotes(vertex.id) + " at " + std::to_string(vertex.parallelism));
            }
        }
    });
}

// A verification job's sinks write to throw-away topics next to their real ones (same partitions),
// so its sinks must be Kafka sinks.
void Loader::add_verification_topics(const Value& v) {
    const size_t index = s_.deployments.size();
    for (const engine::VertexSpec& vertex : s_.deployment_job(index).vertices) {
        if (vertex.kind != engine::OperatorKind::sink) continue;
        const std::string topic = vertex.sink->kafka_topic();
        if (topic.empty() || dynamic_cast<const engine::KafkaSinkConfig*>(vertex.sink.get()) == nullptr) {
            v.child("verification").fail("expected a job whose sinks are Kafka sinks for a verification job (it writes to "
                                         "throw-away topics), found sink " + in_quotes(vertex.id) + " of kind " + in_quotes(vertex.sink_kind));
        }
        const std::string shadow = Scenario::verification_topic(topic, index);
        if (topic_exists(shadow)) {
            v.child("verification").fail("expected no topic " + in_quotes(shadow) + " in /world/topics (the verification job's own)");
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
                if (vertex.is_object() && vertex.contains("id") && vertex["id"].is_string()) listed_vertex_ids_.insert(vertex["id"].get<std::string>());
            }
        }
        for_each_element(v, "an array of vertices (the new program's, as /job/vertices)", [&](const Value& element) { read_vertex(element); });
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
