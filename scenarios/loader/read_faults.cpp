// The loader's faults section: scheduled, random and protocol-point faults, node and system names
// (scenarios/loader/loader.h).
#include "engine/runtime/control_messages.h"
#include "engine/vocabulary/protocol_points.h"
#include "scenarios/coverage.h"
#include "scenarios/fault_types.h"
#include "scenarios/loader/loader.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/point_reach.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios::loading {

// Whether the optional system `r` takes a fault whose "system" is `target`.
bool accepts(const OutsideSystemRegistration& r, SystemTarget target) {
    if (target == SystemTarget::batches) return r.partial_batch_failures;
    if (target == SystemTarget::races) return r.call_races;
    return true;
}

// "an outside system (documents, key_values, objects)": those a fault's "system" may name.
std::string systems_expected(SystemTarget target) {
    std::string names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.present != nullptr || !accepts(r, target)) continue;
        names += (names.empty() ? "" : ", ") + std::string(r.name);
    }
    const char* what = target == SystemTarget::batches ? "an outside system with bulk requests"
                       : target == SystemTarget::races ? "an outside system whose calls race"
                                                       : "an outside system";
    return std::string(what) + " (" + names + ")";
}

// --- faults ---

// The keys a fault of `type` takes, scheduled (besides "kind", "at", "at_point") or drawn by
// faults.random (besides "weight"): the type's own list (scenarios/fault_types.h).
std::vector<std::string> fault_kind_keys(const FaultType& type, FaultUse use) {
    std::vector<std::string> keys = use == FaultUse::scheduled
                                        ? std::vector<std::string>{"kind", "at", "at_point"}
                                        : std::vector<std::string>{"weight"};
    const std::vector<std::string> own = type.keys(use);
    keys.insert(keys.end(), own.begin(), own.end());
    return keys;
}

// The registered fault type "kind" names.
const FaultType& read_fault_type(const Value& v) {
    const FaultTypes& types = FaultTypes::global();
    const std::vector<std::string> names = types.names();
    if (v.get().is_string()) {
        const std::string text = v.get().get<std::string>();
        if (const FaultType* type = types.find(text)) return *type;
        v.fail("expected a fault kind, one of: " + join(names) + "; found " + describe(v.get()) +
               suggestion(text, names));
    }
    v.fail("expected a fault kind, one of: " + join(names) + "; found " + describe(v.get()));
}

void Loader::read_faults(const Value& v) {
    const Object o(v, {"schedule", "random", "strict"},
                   "an object ({\"schedule\": [...], \"random\": {...}, \"strict\": false})");
    if (auto x = o.get("strict")) s_.strict_faults = read_bool(*x);
    if (auto x = o.get("schedule")) {
        if (x->get().is_array() && x->get().size() > static_cast<size_t>(kMaxScheduledFaults)) {
            x->fail("expected " +
                    within_limit(kMaxScheduledFaults, "scheduled faults", "kMaxScheduledFaults") +
                    ", found " + std::to_string(x->get().size()));
        }
        for_each_element(*x, "an array of faults", [&](const Value& e) { read_fault(e); });
    }
    if (auto x = o.get("random")) read_random_faults(*x);
}

void Loader::read_fault(const Value& v) {
    if (!v.get().is_object()) v.expected("an object (a fault)");
    if (!v.get().contains("kind")) Object(v, {"kind"}).missing("kind", "a fault kind");
    const FaultType& type = read_fault_type(v.child("kind"));
    sim::FaultSpec fault;
    fault.kind = type.kind();
    const Object o(v, fault_kind_keys(type, FaultUse::scheduled), "an object (a fault)");
    read_trigger(o, fault);
    const bool at_point = !fault.trigger.point.empty();
    const bool targets_nodes = type.targets() != sim::FaultTargets::none;
    if (auto x = o.get("nodes")) fault.nodes = read_node_names(*x);
    if (auto x = o.get("task_manager_running")) {
        if (o.has("nodes"))
            x->fail("expected either \"nodes\" or \"task_manager_running\", found both");
        read_running_task(*x, fault);
    }
    const bool may_omit_nodes = (at_point || fault.targets_running_task()) &&
                                type.targets() == sim::FaultTargets::node_or_announcer;
    if (targets_nodes && fault.nodes.empty() && !may_omit_nodes) {
        const std::string what = "an array of node names (" + join(node_names()) + ")";
        if (!o.has("nodes")) o.missing("nodes", what);
        o.get("nodes")->fail("expected at least one node, found an empty array");
    }
    if (type.targets() == sim::FaultTargets::link && fault.nodes.size() != 2) {
        o.get("nodes")->fail("expected exactly two nodes (the ends of the link), found " +
                             std::to_string(fault.nodes.size()));
    }
    if (auto x = o.get("other_nodes")) {
        fault.other_nodes = read_node_names(*x);
        for (size_t i = 0; i < fault.other_nodes.size(); ++i) {
            if (std::find(fault.nodes.begin(), fault.nodes.end(), fault.other_nodes[i]) !=
                fault.nodes.end()) {
                x->child(i).fail("expected a node not in \"nodes\", found " +
                                 in_quotes(fault.other_nodes[i]));
            }
        }
    }
    if (auto x = o.get("one_way")) fault.one_way = read_bool(*x);
    if (auto x = o.get("duration")) fault.duration = read_duration(*x, false);
    if (auto x = o.get("restart")) fault.restart = read_bool(*x);
    if (auto x = o.get("restart_delay")) fault.restart_delay = read_duration(*x, true);
    if (auto x = o.get("multiplier")) {
        fault.multiplier =
            static_cast<uint32_t>(read_int(*x, IntRange{1, 1'000'000, "a positive integer"}));
    }
    if (type.reads_messages()) {
        std::vector<std::string> known;
        for (const sim::EventKind* kind : engine::messages::kAll) known.emplace_back(kind->name);
        const std::string what = "an array of control messages (" + join(known) + ")";
        const Value messages = o.require("messages", what);
        for_each_element(messages, what, [&](const Value& element) {
            const std::string name =
                element.get().is_string() ? element.get().get<std::string>() : "";
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                element.fail("expected a control message, one of: " + join(known) + "; found " +
                             describe(element.get()) +
                             (name.empty() ? "" : suggestion(name, known)));
            }
            fault.messages.push_back(name);
        });
        if (fault.messages.empty())
            messages.fail("expected at least one control message, found an empty array");
        if (auto x = o.get("ratio")) fault.ratio = read_ratio(*x);
    }
    if (type.system_target() != SystemTarget::none) {
        fault.system = read_system_name(o.require("system", systems_expected(type.system_target())),
                                        type.system_target());
        if (auto x = o.get("ratio")) fault.ratio = read_ratio(*x);
    }
    s_.faults.push_back(std::move(fault));
}

// "task_manager_running": {"vertex": id, "subtask": i}, the TaskManager that runs that subtask when
// the fault fires. The vertex must be one of some deployment's program, the subtask below its
// largest parallelism there.
void Loader::read_running_task(const Value& v, sim::FaultSpec& fault) {
    const Object o(
        v, {"vertex", "subtask"},
        "an object ({\"vertex\": id, \"subtask\": i}: the TaskManager running that subtask)");
    const Value vertex = o.require("vertex", "a vertex id of the job");
    fault.running_vertex = read_string(vertex, "a vertex id of the job");
    fault.running_subtask =
        read_int32(o.require("subtask", "a subtask index (0-based)"), kNonNegative32);
    int32_t parallelism = 0;
    std::vector<std::string> ids;
    for (size_t d = 0; d <= s_.deployments.size(); ++d) {
        for (const engine::VertexSpec& spec : s_.deployment_job(d).vertices) {
            if (std::find(ids.begin(), ids.end(), spec.id) == ids.end()) ids.push_back(spec.id);
            if (spec.id == fault.running_vertex)
                parallelism = std::max(parallelism, spec.parallelism);
        }
    }
    if (parallelism == 0) {
        vertex.fail("expected a vertex id of the job, one of: " + join(ids) + "; found " +
                    in_quotes(fault.running_vertex) + suggestion(fault.running_vertex, ids));
    }
    if (fault.running_subtask >= parallelism) {
        o.get("subtask")->fail("expected a subtask of " + in_quotes(fault.running_vertex) +
                               " (0.." + std::to_string(parallelism - 1) + ": its parallelism is " +
                               std::to_string(parallelism) + "), found " +
                               std::to_string(fault.running_subtask));
    }
}

// A fault at a point nothing of this job announces could never fire: refused at `where`, naming who
// does.
void refuse_unreachable_point(const Scenario& s, const Value& where, const std::string& point) {
    if (const auto why = unreachable_reason(s, point)) {
        where.fail("expected a protocol point this job announces; \"" + point +
                   "\" is announced by " + std::string(point_announcer(point)->component) +
                   ", and " + *why + " (`eosim points FILE` lists the points this job announces)");
    }
}

void Loader::read_trigger(const Object& o, sim::FaultSpec& fault) {
    if (o.has("at") && o.has("at_point")) {
        o.get("at_point")->fail("expected either \"at\" or \"at_point\", found both");
    }
    if (auto x = o.get("at")) {
        fault.trigger.at = sim::Time::zero() + read_duration(*x, true);
        fault_times_.emplace_back(x->path(), fault.trigger.at);
        return;
    }
    if (!o.has("at_point")) {
        o.value().fail(
            "expected a trigger: \"at\" (a time) or \"at_point\" ({\"point\": name, \"occurrence\": k})");
    }
    const Object p(
        *o.get("at_point"),
        {"point", "occurrence", "node", "vertex", "subtask", "not_after", "delay", "attempt"},
        "an object ({\"point\": name, \"occurrence\": k, \"node\": name, \"vertex\": id, \"subtask\": i, \"delay\": duration})");
    std::vector<std::string> points;
    for (std::string_view point : engine::points::kAll) points.emplace_back(point);
    const Value point = p.require("point", "a protocol point name");
    if (!point.get().is_string() ||
        std::find(points.begin(), points.end(), point.get().get<std::string>()) == points.end()) {
        const std::string hint =
            point.get().is_string() ? suggestion(point.get().get<std::string>(), points) : "";
        point.fail("expected a protocol point, one of: " + join(points) + "; found " +
                   describe(point.get()) + hint);
    }
    fault.trigger.point = point.get().get<std::string>();
    // A fault at a point nothing of this job announces could never fire: refused, naming who does.
    refuse_unreachable_point(s_, point, fault.trigger.point);
    if (auto x = p.get("occurrence")) fault.trigger.occurrence = read_int32(*x, kPositive32);
    if (auto x = p.get("node")) fault.trigger.point_node = read_node_name(*x);
    // Only announcements by a task of this vertex and/or with this subtask index count; refused
    // when no task of any program could ever announce the point so.
    const std::optional<Value> vertex = p.get("vertex");
    const std::optional<Value> subtask = p.get("subtask");
    if (vertex) fault.trigger.point_vertex = read_string(*vertex, "a vertex id of the job");
    if (subtask) fault.trigger.point_subtask = read_int32(*subtask, kNonNegative32);
    if (vertex || subtask) {
        const std::string& id = fault.trigger.point_vertex;
        if (const auto why = unmatched_task_reason(s_, fault.trigger.point, id, -1)) {
            (vertex ? *vertex : *subtask)
                .fail("expected a filter some task of the job can match; " + *why);
        }
        if (const auto why =
                unmatched_task_reason(s_, fault.trigger.point, id, fault.trigger.point_subtask)) {
            subtask->fail("expected a subtask some task of the job can match; " + *why);
        }
    }
    if (auto x = p.get("not_after"))
        fault.trigger.not_after = sim::Time::zero() + read_duration(*x, true);
    if (auto x = p.get("delay")) fault.trigger.delay = read_duration(*x, true);
    if (auto x = p.get("attempt")) {
        const Object a(
            *x, {"min", "max"},
            "an object ({\"min\": k, \"max\": k}: the job's attempt, 1 as deployed, 2 after its first failover)");
        if (auto m = a.get("min")) fault.trigger.attempt_min = read_int32(*m, kPositive32);
        if (auto m = a.get("max")) {
            fault.trigger.attempt_max = read_int32(*m, kPositive32);
            if (fault.trigger.attempt_max < fault.trigger.attempt_min) {
                m->fail("expected at least \"min\" (" + std::to_string(fault.trigger.attempt_min) +
                        "), found " + std::to_string(fault.trigger.attempt_max));
            }
        }
    }
}

// --- random faults (faults.random; the generator is scenarios/random_faults.h) ---

constexpr std::array kRandomModes = {RandomMode::swarm, RandomMode::fixed};

MultiplierRange read_multiplier_range(const Value& v) {
    const Object o(v, {"min", "max"}, "an object {\"min\": integer, \"max\": integer}");
    MultiplierRange range;
    constexpr IntRange kMultiplier{1, 1'000'000, "a positive integer"};
    if (auto x = o.get("min")) range.min = static_cast<uint32_t>(read_int(*x, kMultiplier));
    if (auto x = o.get("max")) range.max = static_cast<uint32_t>(read_int(*x, kMultiplier));
    if (range.max < range.min) {
        const Value where = o.has("max") ? *o.get("max") : *o.get("min");
        where.fail("expected max >= min, found min " + std::to_string(range.min) + " and max " +
                   std::to_string(range.max));
    }
    return range;
}

// A ratio, or {"min": ratio, "max": ratio}.
RatioRange read_ratio_range(const Value& v) {
    if (!v.get().is_object() || !(v.get().contains("min") || v.get().contains("max"))) {
        const sim::Ratio ratio = read_ratio(v);
        return RatioRange{ratio, ratio};
    }
    const Object o(v, {"min", "max"}, "a ratio or an object {\"min\": ratio, \"max\": ratio}");
    RatioRange range{sim::Ratio::never(), sim::Ratio::always()};
    if (auto x = o.get("min")) range.min = read_ratio(*x);
    if (auto x = o.get("max")) range.max = read_ratio(*x);
    const auto below = [](sim::Ratio a, sim::Ratio b) {
        return static_cast<__uint128_t>(a.numerator) * b.denominator <
               static_cast<__uint128_t>(b.numerator) * a.denominator;
    };
    if (below(range.max, range.min)) {
        (o.has("max") ? *o.get("max") : *o.get("min")).fail("expected max >= min");
    }
    return range;
}

std::vector<std::string> read_control_messages(const Value& v) {
    std::vector<std::string> known;
    for (const sim::EventKind* kind : engine::messages::kAll) known.emplace_back(kind->name);
    const std::string what = "an array of control messages (" + join(known) + ")";
    std::vector<std::string> messages;
    for_each_element(v, what, [&](const Value& element) {
        const std::string name = element.get().is_string() ? element.get().get<std::string>() : "";
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            element.fail("expected a control message, one of: " + join(known) + "; found " +
                         describe(element.get()) + (name.empty() ? "" : suggestion(name, known)));
        }
        if (std::find(messages.begin(), messages.end(), name) != messages.end()) {
            element.fail("duplicate message " + in_quotes(name));
        }
        messages.push_back(name);
    });
    if (messages.empty()) v.fail("expected at least one control message, found an empty array");
    return messages;
}

void Loader::read_random_faults(const Value& v) {
    const Object o(
        v, {"mode", "count", "window", "end_window", "quiet_after", "kinds", "point_triggers"},
        "an object (random faults: {\"count\", \"quiet_after\", \"kinds\", ...})");
    RandomFaults r;
    if (auto x = o.get("mode")) r.mode = read_enum(*x, kRandomModes, "a random-fault mode");
    if (auto x = o.get("count")) {
        static const std::string kCountWhat =
            "a non-negative integer, " +
            within_limit(kMaxRandomFaults, "faults", "kMaxRandomFaults");
        const IntRange kCount{0, kMaxRandomFaults, kCountWhat.c_str()};
        if (x->get().is_number()) {
            r.count_min = r.count_max = read_int32(*x, kCount);
        } else {
            const Object c(*x, {"min", "max"},
                           "an integer or an object {\"min\": integer, \"max\": integer}");
            r.count_min = read_int32(c.require("min", "a non-negative integer"), kCount);
            r.count_max = read_int32(c.require("max", "a non-negative integer"), kCount);
            if (r.count_max < r.count_min) {
                c.get("max")->fail("expected max >= min, found min " + std::to_string(r.count_min) +
                                   " and max " + std::to_string(r.count_max));
            }
        }
    }
    r.quiet_after = read_duration(
        o.require("quiet_after", std::string("a positive duration ") + kDurationForm), false);
    r.window_to = r.quiet_after;
    if (auto x = o.get("window")) {
        const Object w(*x, {"from", "to"}, "an object {\"from\": duration, \"to\": duration}");
        if (auto y = w.get("from")) r.window_from = read_duration(*y, true);
        if (auto y = w.get("to")) r.window_to = read_duration(*y, false);
        const Value where = w.has("to") ? *w.get("to") : *w.get("from");
        if (r.window_to <= r.window_from) {
            where.fail("expected from < to, found from " + format_duration(r.window_from) +
                       " and to " + format_duration(r.window_to));
        }
        if (r.window_to > r.quiet_after) {
            where.fail("expected the window to end by quiet_after (" +
                       format_duration(r.quiet_after) + "), found " + format_duration(r.window_to));
        }
    }
    if (auto x = o.get("end_window")) read_end_window(*x, r);
    read_random_kinds(o.require("kinds", "an object of fault kinds ({\"crash\": {...}, ...})"), r);
    if (auto x = o.get("point_triggers")) read_point_triggers(*x, r.point_triggers);
    for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
        r.task_manager_nodes.push_back("tm" + std::to_string(i));
    }
    quiet_after_path_ = o.get("quiet_after")->path();
    s_.random_faults = std::move(r);
}

// The end window is relative to the input's end: when the last record of the slowest input is
// produced (inputs are read before faults).
void Loader::read_end_window(const Value& v, RandomFaults& r) {
    const Object o(v, {"ratio", "before", "after"},
                   "an object {\"ratio\": ratio, \"before\": duration, \"after\": duration}");
    r.end_ratio = read_ratio(o.require(
        "ratio", "a ratio (the share of time-triggered faults placed in the end window)"));
    if (auto x = o.get("before")) r.end_before = read_duration(*x, true);
    if (auto x = o.get("after")) r.end_after = read_duration(*x, true);
    if (s_.inputs.empty())
        v.fail(
            "expected no end_window in a scenario without inputs (it is relative to the input's end)");
    for (const InputSpec& in : s_.inputs) {
        r.input_end =
            std::max(r.input_end, sim::Duration{in.records * 1'000'000'000 / in.rate_per_second});
    }
    if (r.input_end + r.end_after > r.quiet_after) {
        v.fail("expected the end window to end by quiet_after (" + format_duration(r.quiet_after) +
               "), found the input's end (" + format_duration(r.input_end) + ") + after (" +
               format_duration(r.end_after) + ")");
    }
}

void Loader::read_random_kinds(const Value& v, RandomFaults& r) {
    const FaultTypes& types = FaultTypes::global();
    const Object o(v, types.names(), "an object of fault kinds ({\"crash\": {...}, ...})");
    for (const FaultType* type : types.all()) {
        const std::optional<Value> entry = o.get(type->name());
        if (entry) r.kinds.push_back(read_random_kind(*entry, *type));
    }
    if (r.kinds.empty()) v.fail("expected at least one fault kind, found an empty object");
}

RandomFaultKind Loader::read_random_kind(const Value& v, const FaultType& type) {
    const Object k(v, fault_kind_keys(type, FaultUse::drawn),
                   "an object (how this kind is drawn; {} for the defaults)");
    RandomFaultKind spec;
    spec.kind = type.kind();
    if (auto x = k.get("weight"))
        spec.weight = static_cast<uint32_t>(read_int(*x, IntRange{1, 1000, "a positive integer"}));
    const DurationRange defaults = type.default_duration();
    spec.duration = defaults;
    spec.restart_delay = defaults;
    if (auto x = k.get("duration")) spec.duration = read_min_max(*x, defaults, false);
    if (auto x = k.get("restart_delay")) spec.restart_delay = read_min_max(*x, defaults, true);
    if (auto x = k.get("multiplier")) spec.multiplier = read_multiplier_range(*x);
    if (auto x = k.get("one_way")) spec.one_way = read_ratio(*x);
    if (auto x = k.get("job_manager_cut")) spec.job_manager_cut = read_ratio(*x);
    if (type.targets() != sim::FaultTargets::none) {
        spec.nodes = type.candidate_nodes(s_.world.task_managers);
        if (auto x = k.get("nodes")) {
            spec.nodes = read_node_names(*x);
            const size_t least = type.targets() == sim::FaultTargets::link ? 2 : 1;
            if (spec.nodes.size() < least) {
                x->fail("expected at least " + std::to_string(least) + " node" +
                        (least == 1 ? "" : "s") + ", found " + std::to_string(spec.nodes.size()));
            }
        }
    }
    if (type.reads_messages()) {
        for (const sim::EventKind* message : engine::messages::kAll)
            spec.messages.emplace_back(message->name);
        if (auto x = k.get("messages")) spec.messages = read_control_messages(*x);
    }
    if (type.system_target() != SystemTarget::none) {
        spec.systems = read_system_names(
            k.require("systems", "an array of " + systems_expected(type.system_target())),
            type.system_target());
    }
    spec.ratio = type.default_ratio();
    if (auto x = k.get("ratio")) spec.ratio = read_ratio_range(*x);
    return spec;
}

void Loader::read_point_triggers(const Value& v, PointTriggers& p) {
    const Object o(
        v, {"ratio", "points", "max_occurrence", "vertices", "after_failover", "delay"},
        "an object ({\"ratio\": ratio, \"points\": [...], \"max_occurrence\": k, \"vertices\": [ids], "
        "\"after_failover\": ratio, \"delay\": {\"min\", \"max\"}})");
    if (auto x = o.get("ratio")) p.ratio = read_ratio(*x);
    std::vector<std::string> known;
    for (std::string_view point : engine::points::kAll) known.emplace_back(point);
    // By default every point this job announces. A listed point is taken as it is (a drawn fault
    // there may never fire: the accounting reports it); a sink announces only the points its
    // SinkConfig::announced_points declares (SinkContext::announce refuses others), so the testkit
    // lists only those.
    p.points.clear();
    for (const std::string& point : known) {
        if (!unreachable_reason(s_, point)) p.points.push_back(point);
    }
    if (auto x = o.get("points")) {
        p.points.clear();
        for_each_element(*x, "an array of protocol points", [&](const Value& element) {
            const std::string name =
                element.get().is_string() ? element.get().get<std::string>() : "";
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                element.fail("expected a protocol point, one of: " + join(known) + "; found " +
                             describe(element.get()) +
                             (name.empty() ? "" : suggestion(name, known)));
            }
            if (std::find(p.points.begin(), p.points.end(), name) != p.points.end()) {
                element.fail("duplicate point " + in_quotes(name));
            }
            p.points.push_back(name);
        });
        if (p.points.empty()) x->fail("expected at least one protocol point, found an empty array");
    }
    if (auto x = o.get("max_occurrence"))
        p.max_occurrence = read_int32(*x, IntRange{1, 100'000, "a positive integer"});
    if (auto x = o.get("vertices")) {
        // Per drawn point, the listed vertices whose tasks announce it; a vertex that announces
        // none of the points could never be aimed at.
        for_each_element(*x, "an array of vertex ids", [&](const Value& element) {
            const std::string id = read_string(element, "a vertex id of the job");
            bool announces = false;
            for (const std::string& point : p.points) {
                if (!announced_by_task(point) || unmatched_task_reason(s_, point, id, -1)) continue;
                std::vector<std::string>& list = p.vertices[point];
                if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
                announces = true;
            }
            if (!announces) {
                const auto why = unmatched_task_reason(s_, "task.snapshotted", id, -1);
                element.fail("expected a vertex whose tasks announce one of the drawn points; " +
                             (why ? *why : "vertex \"" + id + "\" announces none of them"));
            }
        });
    }
    if (auto x = o.get("after_failover")) p.after_failover = read_ratio(*x);
    if (auto x = o.get("delay"))
        p.delay = read_min_max(*x, DurationRange{Duration::zero(), Duration::millis(500)}, true);
}

void Loader::read_sometimes(const Value& v) {
    for_each_element(v, "an array of coverage combinations", [&](const Value& element) {
        const std::string name = read_string(element, "a coverage combination (a string)");
        const std::string problem = check_combination_name(name);
        if (!problem.empty()) element.fail("expected " + problem + "; found " + in_quotes(name));
        if (std::find(s_.sometimes.begin(), s_.sometimes.end(), name) != s_.sometimes.end()) {
            element.fail("duplicate combination " + in_quotes(name));
        }
        s_.sometimes.push_back(name);
    });
}

std::string Loader::read_node_name(const Value& v) {
    const std::vector<std::string> names = node_names();
    if (!v.get().is_string() ||
        std::find(names.begin(), names.end(), v.get().get<std::string>()) == names.end()) {
        const std::string hint =
            v.get().is_string() ? suggestion(v.get().get<std::string>(), names) : "";
        v.fail("expected a node name, one of: " + join(names) + "; found " + describe(v.get()) +
               hint);
    }
    const std::string name = v.get().get<std::string>();
    if (is_optional_outside_system(name)) use_outside_system(name);  // a fault at its node needs it
    return name;
}

void Loader::use_outside_system(const std::string& name) {
    if (std::find(s_.outside_systems.begin(), s_.outside_systems.end(), name) ==
        s_.outside_systems.end()) {
        s_.outside_systems.push_back(name);
    }
}

std::string Loader::read_system_name(const Value& v, SystemTarget target) {
    const bool batches = target == SystemTarget::batches;
    std::vector<std::string> names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.present == nullptr && accepts(r, target)) names.emplace_back(r.name);
    }
    // The scenario's own databases (a CDC source's, an upsert sink's) take the generic faults too,
    // and so does HA's coordination service; they have no bulk requests. The job is read before the
    // faults, so they are known.
    const std::vector<std::string> databases =
        batches ? std::vector<std::string>{}
                : scenario_fault_systems(s_, target == SystemTarget::races);
    names.insert(names.end(), databases.begin(), databases.end());
    if (!v.get().is_string() ||
        std::find(names.begin(), names.end(), v.get().get<std::string>()) == names.end()) {
        const std::string hint =
            v.get().is_string() ? suggestion(v.get().get<std::string>(), names) : "";
        std::string expected = systems_expected(target);
        if (!databases.empty())
            expected += " or one of this scenario's databases (" + join(databases) + ")";
        v.fail("expected " + expected + "; found " + describe(v.get()) + hint);
    }
    const std::string name = v.get().get<std::string>();
    if (is_optional_outside_system(name)) use_outside_system(name);
    return name;
}

std::vector<std::string> Loader::read_system_names(const Value& v, SystemTarget target) {
    std::vector<std::string> names;
    for_each_element(v, "an array of outside systems", [&](const Value& element) {
        std::string name = read_system_name(element, target);
        if (std::find(names.begin(), names.end(), name) != names.end())
            element.fail("duplicate system " + in_quotes(name));
        names.push_back(std::move(name));
    });
    if (names.empty()) v.fail("expected at least one outside system, found an empty array");
    return names;
}

std::vector<std::string> Loader::read_node_names(const Value& v) {
    std::vector<std::string> names;
    for_each_element(v, "an array of node names", [&](const Value& element) {
        std::string name = read_node_name(element);
        if (std::find(names.begin(), names.end(), name) != names.end()) {
            element.fail("duplicate node " + in_quotes(name));
        }
        names.push_back(std::move(name));
    });
    return names;
}

}  // namespace eosim::scenarios::loading
