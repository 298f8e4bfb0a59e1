#include "reports/history_json.h"

#include "reports/json_fields.h"

namespace eosim::reports {

using nlohmann::json;

namespace {

json task_to_json(const scenarios::CheckpointTaskStats& t) {
    return {{"vertex", t.vertex},
            {"subtask", t.subtask},
            {"start_delay_ms", t.start_delay_ms},
            {"alignment_ms", t.alignment_ms},
            {"sync_ms", t.sync_ms},
            {"async_ms", t.async_ms},
            {"operator_state_bytes", t.operator_state_bytes},
            {"channel_state_bytes", t.channel_state_bytes},
            {"unaligned", t.unaligned}};
}

scenarios::CheckpointTaskStats task_from_json(const json& j, const std::string& path) {
    scenarios::CheckpointTaskStats t;
    t.vertex = field<std::string>(j, "vertex", path);
    t.subtask = optional_field<int32_t>(j, "subtask", path, 0);
    t.start_delay_ms = optional_field<double>(j, "start_delay_ms", path, 0);
    t.alignment_ms = optional_field<double>(j, "alignment_ms", path, 0);
    t.sync_ms = optional_field<double>(j, "sync_ms", path, 0);
    t.async_ms = optional_field<double>(j, "async_ms", path, -1);
    t.operator_state_bytes = optional_field<int64_t>(j, "operator_state_bytes", path, 0);
    t.channel_state_bytes = optional_field<int64_t>(j, "channel_state_bytes", path, 0);
    t.unaligned = optional_field<bool>(j, "unaligned", path, false);
    return t;
}

json to_json(const scenarios::StatsSpread& s) {
    return {{"min", s.min}, {"avg", s.avg}, {"max", s.max}, {"p50", s.p50}, {"p99", s.p99}};
}

scenarios::StatsSpread spread_from_json(const json& j, const char* key, const std::string& path) {
    scenarios::StatsSpread s;
    if (!j.is_object() || !j.contains(key)) return s;
    const json& v = j.at(key);
    const std::string at = path + "/" + key;
    s.min = optional_field<double>(v, "min", at, 0);
    s.avg = optional_field<double>(v, "avg", at, 0);
    s.max = optional_field<double>(v, "max", at, 0);
    s.p50 = optional_field<double>(v, "p50", at, 0);
    s.p99 = optional_field<double>(v, "p99", at, 0);
    return s;
}

json to_json(const scenarios::CheckpointGroupSummary& g) {
    return {{"count", g.count},
            {"duration_ms", to_json(g.duration_ms)},
            {"checkpointed_bytes", to_json(g.checkpointed_bytes)},
            {"persisted_bytes", to_json(g.persisted_bytes)},
            {"start_delay_ms", to_json(g.start_delay_ms)},
            {"alignment_ms", to_json(g.alignment_ms)}};
}

scenarios::CheckpointGroupSummary group_from_json(const json& j, const char* key,
                                                  const std::string& path) {
    scenarios::CheckpointGroupSummary g;
    if (!j.is_object() || !j.contains(key)) return g;
    const json& v = j.at(key);
    const std::string at = path + "/" + key;
    g.count = optional_field<int64_t>(v, "count", at, 0);
    g.duration_ms = spread_from_json(v, "duration_ms", at);
    g.checkpointed_bytes = spread_from_json(v, "checkpointed_bytes", at);
    g.persisted_bytes = spread_from_json(v, "persisted_bytes", at);
    g.start_delay_ms = spread_from_json(v, "start_delay_ms", at);
    g.alignment_ms = spread_from_json(v, "alignment_ms", at);
    return g;
}

}  // namespace

json checkpoints_to_json(const std::vector<scenarios::CheckpointStats>& checkpoints) {
    json out = json::array();
    for (const scenarios::CheckpointStats& c : checkpoints) {
        json tasks = json::array();
        for (const scenarios::CheckpointTaskStats& t : c.tasks) tasks.push_back(task_to_json(t));
        json j = {{"id", c.id},
                  {"deployment", c.deployment},
                  {"type", c.type},
                  {"alignment", c.alignment},
                  {"status", c.status},
                  {"triggered_s", c.triggered_s},
                  {"duration_ms", c.duration_ms},
                  {"unaligned", c.unaligned},
                  {"checkpointed_bytes", c.checkpointed_bytes()},
                  {"operator_state_bytes", c.operator_state_bytes},
                  {"channel_state_bytes", c.channel_state_bytes},
                  {"max_alignment_ms", c.max_alignment_ms},
                  {"max_start_delay_ms", c.max_start_delay_ms},
                  {"acknowledged", c.acknowledged},
                  {"tasks", std::move(tasks)}};
        if (!c.failure_reason.empty()) j["failure_reason"] = c.failure_reason;
        if (!c.failure.empty()) j["failure"] = c.failure;
        if (c.restored_uncompleted) j["restored_uncompleted"] = true;
        if (c.shared_bytes_referenced > 0) {
            j["shared_bytes_uploaded"] = c.shared_bytes_uploaded;
            j["shared_bytes_referenced"] = c.shared_bytes_referenced;
        }
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<scenarios::CheckpointStats> checkpoints_from_json(const json& j,
                                                              const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::CheckpointStats> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const json& e = j[i];
        const std::string at = path + "/" + std::to_string(i);
        scenarios::CheckpointStats c;
        c.id = field<int64_t>(e, "id", at);
        c.deployment = optional_field<std::string>(e, "deployment", at, "v1");
        c.type = optional_field<std::string>(e, "type", at, "checkpoint");
        c.alignment = optional_field<std::string>(e, "alignment", at, "aligned");
        c.status = optional_field<std::string>(e, "status", at, "in_progress");
        c.triggered_s = optional_field<double>(e, "triggered_s", at, 0);
        c.duration_ms = optional_field<double>(e, "duration_ms", at, -1);
        c.unaligned = optional_field<bool>(e, "unaligned", at, false);
        c.operator_state_bytes = optional_field<int64_t>(e, "operator_state_bytes", at, 0);
        c.channel_state_bytes = optional_field<int64_t>(e, "channel_state_bytes", at, 0);
        c.shared_bytes_uploaded = optional_field<int64_t>(e, "shared_bytes_uploaded", at, 0);
        c.shared_bytes_referenced = optional_field<int64_t>(e, "shared_bytes_referenced", at, 0);
        c.max_alignment_ms = optional_field<double>(e, "max_alignment_ms", at, 0);
        c.max_start_delay_ms = optional_field<double>(e, "max_start_delay_ms", at, 0);
        c.acknowledged = optional_field<int64_t>(e, "acknowledged", at, 0);
        c.failure_reason = optional_field<std::string>(e, "failure_reason", at, "");
        c.failure = optional_field<std::string>(e, "failure", at, "");
        c.restored_uncompleted = optional_field<bool>(e, "restored_uncompleted", at, false);
        const json& tasks = optional_array(e, "tasks", at);
        for (size_t t = 0; t < tasks.size(); ++t)
            c.tasks.push_back(task_from_json(tasks[t], at + "/tasks/" + std::to_string(t)));
        out.push_back(std::move(c));
    }
    return out;
}

json to_json(const scenarios::CheckpointStatsSummary& s) {
    return {{"completed", to_json(s.completed_summary)}, {"failed", to_json(s.failed_summary)}};
}

scenarios::CheckpointStatsSummary checkpoint_summary_from_json(const json& j,
                                                               const std::string& path) {
    scenarios::CheckpointStatsSummary s;
    s.completed_summary = group_from_json(j, "completed", path);
    s.failed_summary = group_from_json(j, "failed", path);
    s.completed = s.completed_summary.count;
    return s;
}

json status_history_to_json(const std::vector<scenarios::JobStatusChange>& changes) {
    json out = json::array();
    for (const scenarios::JobStatusChange& c : changes) {
        out.push_back({{"at_s", c.at_s},
                       {"status", c.status},
                       {"deployment", c.deployment},
                       {"detail", c.detail}});
    }
    return out;
}

std::vector<scenarios::JobStatusChange> status_history_from_json(const json& j,
                                                                 const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::JobStatusChange> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        out.push_back({optional_field<double>(j[i], "at_s", at, 0),
                       field<std::string>(j[i], "status", at),
                       optional_field<std::string>(j[i], "deployment", at, "v1"),
                       optional_field<std::string>(j[i], "detail", at, "")});
    }
    return out;
}

json exceptions_to_json(const std::vector<scenarios::JobException>& exceptions) {
    json out = json::array();
    for (const scenarios::JobException& e : exceptions) {
        json x = {{"at_s", e.at_s},
                  {"attempt", e.attempt},
                  {"attempt_name", e.attempt_name},
                  {"status_after", e.status_after},
                  {"reason", e.reason}};
        if (!e.root_cause.empty()) x["root_cause"] = e.root_cause;
        if (e.job_manager) x["job_manager"] = true;
        out.push_back(std::move(x));
    }
    return out;
}

std::vector<scenarios::JobException> exceptions_from_json(const json& j, const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::JobException> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        out.push_back({optional_field<double>(j[i], "at_s", at, 0),
                       optional_field<int64_t>(j[i], "attempt", at, 0),
                       optional_field<std::string>(j[i], "attempt_name", at, ""),
                       optional_field<std::string>(j[i], "status_after", at, ""),
                       field<std::string>(j[i], "reason", at),
                       optional_field<std::string>(j[i], "root_cause", at, ""),
                       optional_field<bool>(j[i], "job_manager", at, false)});
    }
    return out;
}

json deployments_to_json(const std::vector<scenarios::DeploymentSpan>& deployments) {
    json out = json::array();
    for (const scenarios::DeploymentSpan& d : deployments) {
        out.push_back({{"name", d.name},
                       {"begin_s", d.begin_s},
                       {"end_s", d.end_s},
                       {"restored_from", d.restored_from},
                       {"restored_kind", d.restored_kind},
                       {"ended", d.ended},
                       {"attempts", d.attempts}});
    }
    return out;
}

std::vector<scenarios::DeploymentSpan> deployments_from_json(const json& j,
                                                             const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::DeploymentSpan> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        scenarios::DeploymentSpan d;
        d.name = field<std::string>(j[i], "name", at);
        d.begin_s = optional_field<double>(j[i], "begin_s", at, 0);
        d.end_s = optional_field<double>(j[i], "end_s", at, -1);
        d.restored_from = optional_field<int64_t>(j[i], "restored_from", at, 0);
        d.restored_kind = optional_field<std::string>(j[i], "restored_kind", at, "");
        d.ended = optional_field<std::string>(j[i], "ended", at, "");
        d.attempts = optional_field<int64_t>(j[i], "attempts", at, 0);
        out.push_back(std::move(d));
    }
    return out;
}

json back_pressure_to_json(const std::vector<scenarios::VertexBackPressure>& vertices) {
    json out = json::array();
    for (const scenarios::VertexBackPressure& v : vertices) {
        out.push_back({{"vertex", v.vertex},
                       {"busy", v.busy},
                       {"backpressured", v.backpressured},
                       {"idle", v.idle},
                       {"level", v.level()},
                       {"samples", v.samples}});
    }
    return out;
}

std::vector<scenarios::VertexBackPressure> back_pressure_from_json(const json& j,
                                                                   const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::VertexBackPressure> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        out.push_back({field<std::string>(j[i], "vertex", at),
                       optional_field<double>(j[i], "busy", at, 0),
                       optional_field<double>(j[i], "backpressured", at, 0),
                       optional_field<double>(j[i], "idle", at, 0),
                       optional_field<int64_t>(j[i], "samples", at, 0)});
    }
    return out;
}

}  // namespace eosim::reports
