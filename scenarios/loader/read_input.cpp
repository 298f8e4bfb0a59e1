// The loader's input section (scenarios/loader/loader.h).
#include "scenarios/loader/loader.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios::loading {

// --- input ---

// "event_time": {"out_of_orderness": "150ms", "late_percent": 2, "late_by": "3s"}
sim::external::EventTimeSpec read_event_time(const Value& v) {
    const Object o(v, {"out_of_orderness", "late_percent", "late_by"}, "an object (the records' event time)");
    sim::external::EventTimeSpec e;
    if (auto x = o.get("out_of_orderness")) e.out_of_orderness = read_duration(*x, true);
    if (auto x = o.get("late_percent")) e.late_percent = read_int32(*x, IntRange{0, 100, "a percentage from 0 to 100"});
    if (auto x = o.get("late_by")) e.late_by = read_duration(*x, true);
    if (e.late_percent > 0 && e.late_by == sim::Duration::zero()) {
        o.get("late_percent")->fail("expected late_by above 0 with a late_percent (how far behind the late records are)");
    }
    return e;
}

void Loader::read_input(const Value& v) {
    for_each_element(v, "an array of inputs", [&](const Value& element) {
        const Object o(element, {"topic", "records", "keys", "rate_per_second", "value_min", "value_max", "hot_key_percent", "event_time"},
                       "an object (an input)");
        InputSpec in;
        const Value topic = o.require("topic", "the name of a topic in /world/topics");
        in.topic = read_string(topic);
        if (!topic_exists(in.topic)) topic.expected("a topic listed in /world/topics (" + join(topic_names()) + ")");
        if (auto it = sink_topics_.find(in.topic); it != sink_topics_.end()) {
            topic.expected("a topic no sink writes (" + it->second + " writes it)");
        }
        if (auto x = o.get("records")) {
            in.records = read_int(*x, kNonNegative64);
            if (in.records > kMaxInputRecords - input_records_) {
                x->expected(within_limit(kMaxInputRecords - input_records_,
                                         "records (of all inputs together: " + std::to_string(kMaxInputRecords) + ")",
                                         "kMaxInputRecords"));
            }
        }
        input_records_ += in.records;
        if (auto x = o.get("keys")) {
            in.keys = read_int(*x, kPositive64);
            if (in.keys > kMaxKeysPerInput) x->expected(within_limit(kMaxKeysPerInput, "keys", "kMaxKeysPerInput"));
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
        if (auto x = o.get("event_time")) in.event_time = read_event_time(*x);
        if (in.value_max < in.value_min) {
            const Value where = o.has("value_max") ? *o.get("value_max") : *o.get("value_min");
            where.fail("expected value_max >= value_min, found value_min " + std::to_string(in.value_min) +
                       " and value_max " + std::to_string(in.value_max));
        }
        s_.inputs.push_back(in);
    });
}

}  // namespace eosim::scenarios::loading
