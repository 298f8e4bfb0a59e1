// The loader's input section (scenarios/loader/loader.h).
#include "scenarios/loader/loader.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios::loading {

// --- input ---

// "event_time": {"out_of_orderness": "150ms", "late_percent": 2, "late_by": "3s"}
sim::external::EventTimeSpec read_event_time(const Value& v) {
    const Object o(v, {"out_of_orderness", "late_percent", "late_by"},
                   "an object (the records' event time)");
    sim::external::EventTimeSpec e;
    if (auto x = o.get("out_of_orderness")) e.out_of_orderness = read_duration(*x, true);
    if (auto x = o.get("late_percent"))
        e.late_percent = read_int32(*x, IntRange{0, 100, "a percentage from 0 to 100"});
    if (auto x = o.get("late_by")) e.late_by = read_duration(*x, true);
    if (e.late_percent > 0 && e.late_by == sim::Duration::zero()) {
        o.get("late_percent")
            ->fail(
                "expected late_by above 0 with a late_percent (how far behind the late records are)");
    }
    return e;
}

namespace {

// The first dedup vertex of `vertices` (a program, in topological order) that records of `topic`
// reach, through any path; nullptr when none does.
const engine::VertexSpec* dedup_reached_from(const std::vector<engine::VertexSpec>& vertices,
                                             const std::string& topic, size_t& index) {
    std::set<std::string> reached;
    for (size_t i = 0; i < vertices.size(); ++i) {
        const engine::VertexSpec& v = vertices[i];
        bool reaches = v.kind == engine::OperatorKind::kafka_source && v.topic == topic;
        for (const engine::InputEdge& edge : v.inputs)
            reaches = reaches || reached.contains(edge.from);
        if (!reaches) continue;
        if (v.kind == engine::OperatorKind::dedup) {
            index = i;
            return &v;
        }
        reached.insert(v.id);
    }
    return nullptr;
}

}  // namespace

// The dedup's model is exact only for in-bound input (engine/runtime/dedup_operator.h): refuse
// late records in an input that any program's dedup reads.
void Loader::check_no_late_records_into_dedup(const Value& late_percent,
                                              const InputSpec& in) const {
    if (!in.event_time || in.event_time->late_percent == 0) return;
    std::vector<std::pair<std::string, const std::vector<engine::VertexSpec>*>> programs{
        {"/job/vertices", &s_.job.vertices}};
    for (size_t d = 0; d < s_.deployments.size(); ++d) {
        if (s_.deployments[d].job_vertices) {
            programs.emplace_back("/deployments/" + std::to_string(d) + "/job_vertices",
                                  &*s_.deployments[d].job_vertices);
        }
    }
    for (const auto& [path, vertices] : programs) {
        size_t index = 0;
        const engine::VertexSpec* dedup = dedup_reached_from(*vertices, in.topic, index);
        if (dedup == nullptr) continue;
        late_percent.fail(
            "expected no late records (late_percent 0) in an input that reaches a dedup, found " +
            std::to_string(in.event_time->late_percent) + ": topic " + in_quotes(in.topic) +
            " reaches dedup " + in_quotes(dedup->id) + " (" + path + "/" + std::to_string(index) +
            "), whose model is exact only for in-bound input (a late record is kept or dropped depending "
            "on whether its key's period has expired yet: engine/runtime/dedup_operator.h)");
    }
}

// "partition_weights": [8, 1, 0, 1]: uneven splits, one weight per partition of the topic; every
// weighted partition needs a key of its own (key mod partitions == p, so keys > p).
void Loader::read_partition_weights(const Value& v, const Object& input, InputSpec& in) const {
    const int32_t partitions = topic_partitions(in.topic);
    if (!v.get().is_array() || v.get().size() != static_cast<size_t>(partitions)) {
        v.expected("an array of " + std::to_string(partitions) +
                   " weights, one per partition of topic " + in_quotes(in.topic));
    }
    int64_t total = 0;
    for_each_element(v, "an array of weights", [&](const Value& element) {
        const int64_t weight =
            read_int(element, IntRange{0, 1'000'000, "a weight from 0 to 1000000"});
        const auto partition = static_cast<int64_t>(in.partition_weights.size());
        if (weight > 0 && partition >= in.keys) {
            element.fail("expected weight 0 for partition " + std::to_string(partition) +
                         ": with " + std::to_string(in.keys) +
                         " keys no key goes to it (a key goes to partition key mod " +
                         std::to_string(partitions) + ")");
        }
        total += weight;
        in.partition_weights.push_back(weight);
    });
    if (total == 0) v.fail("expected at least one weight above 0");
    if (in.hot_key_percent > 0) {
        input.get("hot_key_percent")
            ->fail("expected no hot_key_percent with partition_weights (two skews of one input)");
    }
}

void Loader::read_input(const Value& v) {
    for_each_element(v, "an array of inputs", [&](const Value& element) {
        const Object o(element,
                       {"topic", "records", "keys", "rate_per_second", "value_min", "value_max",
                        "hot_key_percent", "partition_weights", "event_time"},
                       "an object (an input)");
        InputSpec in;
        const Value topic = o.require("topic", "the name of a topic in /world/topics");
        in.topic = read_string(topic);
        if (!topic_exists(in.topic))
            topic.expected("a topic listed in /world/topics (" + join(topic_names()) + ")");
        if (auto it = sink_topics_.find(in.topic); it != sink_topics_.end()) {
            topic.expected("a topic no sink writes (" + it->second + " writes it)");
        }
        if (auto x = o.get("records")) {
            in.records = read_int(*x, kNonNegative64);
            if (in.records > kMaxInputRecords - input_records_) {
                x->expected(within_limit(
                    kMaxInputRecords - input_records_,
                    "records (of all inputs together: " + std::to_string(kMaxInputRecords) + ")",
                    "kMaxInputRecords"));
            }
        }
        input_records_ += in.records;
        if (auto x = o.get("keys")) {
            in.keys = read_int(*x, kPositive64);
            if (in.keys > kMaxKeysPerInput)
                x->expected(within_limit(kMaxKeysPerInput, "keys", "kMaxKeysPerInput"));
        }
        input_paths_.push_back(element.path());
        if (auto x = o.get("rate_per_second")) {
            in.rate_per_second = read_int(*x, IntRange{1, 1'000'000'000, "a positive integer"});
        }
        if (auto x = o.get("value_min")) in.value_min = read_int(*x, kAny64);
        if (auto x = o.get("value_max")) in.value_max = read_int(*x, kAny64);
        if (auto x = o.get("hot_key_percent")) {
            in.hot_key_percent = read_int32(*x, IntRange{0, 100, "a percentage from 0 to 100"});
        }
        if (auto x = o.get("partition_weights")) read_partition_weights(*x, o, in);
        if (auto x = o.get("event_time")) {
            in.event_time = read_event_time(*x);
            if (in.event_time->late_percent > 0)
                check_no_late_records_into_dedup(x->child("late_percent"), in);
        }
        if (in.value_max < in.value_min) {
            const Value where = o.has("value_max") ? *o.get("value_max") : *o.get("value_min");
            where.fail("expected value_max >= value_min, found value_min " +
                       std::to_string(in.value_min) + " and value_max " +
                       std::to_string(in.value_max));
        }
        s_.inputs.push_back(in);
    });
}

}  // namespace eosim::scenarios::loading
