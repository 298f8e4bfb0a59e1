// Implements scenarios/scenario.h: `load_scenario` (JSON file -> Scenario, with every user error
// reported as a ScenarioError naming the file, the JSON path and what was expected) and the small
// to_string helpers. The file format is documented in scenarios/README.md.
//
// Reading is one pass over the document in a fixed order (world, job, input, faults, oracles,
// expect), so later sections are checked against earlier ones: vertices against topics and slots,
// faults against node names, the expectation against the oracles.
#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/sink_registry.h"
#include "engine/connectors/upsert_sink.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/protocol_points.h"
#include "scenarios/coverage.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/run_limits.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

const char* to_string(OracleKind kind) {
    switch (kind) {
        case OracleKind::exactly_once_output: return "exactly_once_output";
        case OracleKind::at_least_once_output: return "at_least_once_output";
        case OracleKind::state_after_restore: return "state_after_restore";
        case OracleKind::visibility: return "visibility";
        case OracleKind::liveness: return "liveness";
        case OracleKind::no_key_backwards: return "no_key_backwards";
        case OracleKind::mirror: return "mirror";
    }
    return "unknown";
}

namespace {

using nlohmann::json;
using sim::Duration;

constexpr std::array kAllOracles = {OracleKind::exactly_once_output, OracleKind::at_least_once_output,
                                    OracleKind::state_after_restore, OracleKind::visibility, OracleKind::liveness,
                                    OracleKind::no_key_backwards,    OracleKind::mirror};
constexpr std::array kAllOperators = {engine::OperatorKind::kafka_source, engine::OperatorKind::map,
                                      engine::OperatorKind::filter,       engine::OperatorKind::union_all,
                                      engine::OperatorKind::keyed_count,  engine::OperatorKind::keyed_sum,
                                      engine::OperatorKind::sink,         engine::OperatorKind::cdc_source};
constexpr std::array kAllEdges = {engine::EdgeKind::forward, engine::EdgeKind::hash, engine::EdgeKind::rebalance};
constexpr std::array kAllModes = {engine::CheckpointingMode::exactly_once, engine::CheckpointingMode::at_least_once};
constexpr std::array kAllFaults = {sim::FaultKind::crash,
                                   sim::FaultKind::pause,
                                   sim::FaultKind::partition,
                                   sim::FaultKind::slow_link,
                                   sim::FaultKind::storage_failure,
                                   sim::FaultKind::storage_slow,
                                   sim::FaultKind::broker_unavailable,
                                   sim::FaultKind::kafka_write_failure,
                                   sim::FaultKind::transaction_abort,
                                   sim::FaultKind::message_loss,
                                   sim::FaultKind::system_unavailable,
                                   sim::FaultKind::system_write_errors,
                                   sim::FaultKind::bulk_partial_failure};

bool targets_a_system(sim::FaultKind kind) {
    return kind == sim::FaultKind::system_unavailable || kind == sim::FaultKind::system_write_errors ||
           kind == sim::FaultKind::bulk_partial_failure;
}

// "an outside system (documents, key_values, objects)"; with `batches`, only those with bulk requests.
std::string systems_expected(bool batches) {
    std::string names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (batches && !r.partial_batch_failures) continue;
        names += (names.empty() ? "" : ", ") + std::string(r.name);
    }
    return std::string(batches ? "an outside system with bulk requests" : "an outside system") + " (" + names + ")";
}

constexpr int32_t kMaxParallelismLimit = 32768;  // Flink's upper bound for max parallelism (2^15)

// ---------------------------------------------------------------------------------------------
// Text helpers

std::string in_quotes(std::string_view text) { return json(std::string(text)).dump(); }

template <typename Range>
std::string join(const Range& items) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += ", ";
        out += item;
    }
    return out;
}

using engine::describe_json_value;
constexpr auto describe = describe_json_value;

std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

struct DurationUnit {
    int64_t ns;
    std::string_view suffix;
};
// Largest first, for formatting.
constexpr DurationUnit kDurationUnits[] = {{3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"},
                                           {1'000'000, "ms"},        {1'000, "us"},         {1, "ns"}};

std::string format_duration(Duration d) {
    for (const DurationUnit& unit : kDurationUnits) {
        if (d.ns != 0 && d.ns % unit.ns == 0) return std::to_string(d.ns / unit.ns) + std::string(unit.suffix);
    }
    return "0ms";
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// " (did you mean "x"?)" when one candidate is close to `word`, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
    const std::string* best = nullptr;
    size_t best_distance = 3;  // at most two edits away
    for (const std::string& candidate : candidates) {
        const size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = &candidate;
        }
    }
    return best == nullptr ? "" : " (did you mean " + in_quotes(*best) + "?)";
}

// ---------------------------------------------------------------------------------------------
// A JSON value together with where it is in which file

class Value {
public:
    Value(const json& value, std::string path, const std::string& file)
        : value_(&value), path_(std::move(path)), file_(&file) {}

    const json& get() const { return *value_; }
    const std::string& path() const { return path_; }
    const std::string& file() const { return *file_; }
    Value child(std::string_view key) const {
        return Value(value_->at(std::string(key)), path_ + "/" + pointer_token(key), *file_);
    }
    Value child(size_t index) const { return Value(value_->at(index), path_ + "/" + std::to_string(index), *file_); }

    [[noreturn]] void fail(const std::string& message) const {
        throw ScenarioError(*file_, path_.empty() ? "/" : path_, message);
    }
    // "expected <what>, found <the value>"
    [[noreturn]] void expected(const std::string& what) const {
        fail("expected " + what + ", found " + describe(*value_));
    }

private:
    const json* value_;
    std::string path_;
    const std::string* file_;
};

// An object whose keys are checked against the allowed ones on construction.
class Object {
public:
    Object(const Value& value, std::vector<std::string> allowed, const std::string& what = "an object")
        : value_(value), allowed_(std::move(allowed)) {
        if (!value.get().is_object()) value.expected(what);
        for (const auto& item : value.get().items()) {
            if (std::find(allowed_.begin(), allowed_.end(), item.key()) != allowed_.end()) continue;
            value.child(item.key())
                .fail("unknown key " + in_quotes(item.key()) + suggestion(item.key(), allowed_) +
                      "; expected one of: " + join(allowed_));
        }
    }

    const Value& value() const { return value_; }
    bool has(std::string_view key) const { return value_.get().contains(std::string(key)); }
    std::optional<Value> get(std::string_view key) const {
        if (!has(key)) return std::nullopt;
        return value_.child(key);
    }
    // A key that must be present; `what` describes its value for the message.
    Value require(std::string_view key, const std::string& what) const {
        if (!has(key)) missing(key, what);
        return value_.child(key);
    }
    [[noreturn]] void missing(std::string_view key, const std::string& what) const {
        throw ScenarioError(value_.file(), value_.path() + "/" + pointer_token(key),
                            "missing required key " + in_quotes(key) + " (expected " + what + ")");
    }

private:
    Value value_;
    std::vector<std::string> allowed_;
};

// ---------------------------------------------------------------------------------------------
// Scalars

struct IntRange {
    int64_t min;
    int64_t max;
    const char* what;
};
constexpr IntRange kPositive32{1, std::numeric_limits<int32_t>::max(), "a positive integer"};
constexpr IntRange kNonNegative32{0, std::numeric_limits<int32_t>::max(), "a non-negative integer"};
constexpr IntRange kPositive64{1, std::numeric_limits<int64_t>::max(), "a positive integer"};
constexpr IntRange kNonNegative64{0, std::numeric_limits<int64_t>::max(), "a non-negative integer"};
constexpr IntRange kAny64{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), "an integer"};

int64_t read_int(const Value& v, const IntRange& range) {
    const json& j = v.get();
    if (!j.is_number_integer()) v.expected(range.what);
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        v.expected(std::string(range.what) + " (at most " + std::to_string(range.max) + ")");
    }
    const int64_t n = j.get<int64_t>();
    if (n < range.min) v.expected(range.what);
    if (n > range.max) v.expected(std::string(range.what) + " (at most " + std::to_string(range.max) + ")");
    return n;
}

int32_t read_int32(const Value& v, const IntRange& range) { return static_cast<int32_t>(read_int(v, range)); }

bool read_bool(const Value& v) {
    if (!v.get().is_boolean()) v.expected("true or false");
    return v.get().get<bool>();
}

std::string read_string(const Value& v, const char* what = "a non-empty string") {
    if (!v.get().is_string() || v.get().get<std::string>().empty()) v.expected(what);
    return v.get().get<std::string>();
}

// "500ms", "2s", "1.5s", "10us", "1m", "1h", "250ns", or an integer number of milliseconds.
std::optional<Duration> parse_duration(std::string_view text) {
    size_t i = 0;
    int64_t whole = 0;
    int64_t fraction = 0;
    int64_t fraction_scale = 1;
    constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / 10;
    if (i == text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        if (whole > kLimit) return std::nullopt;
        whole = whole * 10 + (text[i] - '0');
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (i == text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            if (fraction_scale > 1'000'000'000) return std::nullopt;  // finer than a nanosecond
            fraction = fraction * 10 + (text[i] - '0');
            fraction_scale *= 10;
        }
    }
    const std::string_view unit = text.substr(i);
    int64_t unit_ns = 0;
    for (const DurationUnit& u : kDurationUnits) {
        if (unit == u.suffix) unit_ns = u.ns;
    }
    if (unit_ns == 0) return std::nullopt;
    if (whole > Duration::max().ns / unit_ns) return std::nullopt;
    const __int128 fraction_ns = static_cast<__int128>(fraction) * unit_ns;
    if (fraction_ns % fraction_scale != 0) return std::nullopt;  // not a whole number of nanoseconds
    const int64_t ns = whole * unit_ns + static_cast<int64_t>(fraction_ns / fraction_scale);
    if (ns > Duration::max().ns) return std::nullopt;
    return Duration::nanos(ns);
}

constexpr const char* kDurationForm =
    "(a string such as \"500ms\", \"2s\", \"10us\", \"1m\", or an integer of milliseconds)";

Duration read_duration(const Value& v, bool allow_zero) {
    const std::string what = std::string(allow_zero ? "a duration " : "a positive duration ") + kDurationForm;
    std::optional<Duration> d;
    if (v.get().is_number_integer()) {
        const int64_t ms =
            read_int(v, IntRange{0, Duration::max().ns / 1'000'000, "a non-negative integer of milliseconds"});
        d = Duration::millis(ms);
    } else if (v.get().is_string()) {
        d = parse_duration(v.get().get<std::string>());
    }
    if (!d || (!allow_zero && *d == Duration::zero())) v.expected(what);
    return *d;
}

constexpr const char* kRatioForm = "a ratio between 0 and 1 (\"1/100\" or {\"numerator\": 1, \"denominator\": 100})";

std::optional<sim::Ratio> parse_ratio(std::string_view text) {
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    auto parse_part = [](std::string_view part) -> std::optional<uint64_t> {
        if (part.empty() || part.size() > 18) return std::nullopt;
        uint64_t n = 0;
        for (char c : part) {
            if (c < '0' || c > '9') return std::nullopt;
            n = n * 10 + static_cast<uint64_t>(c - '0');
        }
        return n;
    };
    const auto numerator = parse_part(text.substr(0, slash));
    const auto denominator = parse_part(text.substr(slash + 1));
    if (!numerator || !denominator) return std::nullopt;
    return sim::Ratio{*numerator, *denominator};
}

sim::Ratio read_ratio(const Value& v) {
    sim::Ratio ratio;
    if (v.get().is_string()) {
        const auto parsed = parse_ratio(v.get().get<std::string>());
        if (!parsed) v.expected(kRatioForm);
        ratio = *parsed;
    } else if (v.get().is_object()) {
        const Object o(v, {"numerator", "denominator"}, kRatioForm);
        ratio.numerator =
            static_cast<uint64_t>(read_int(o.require("numerator", "a non-negative integer"), kNonNegative64));
        ratio.denominator =
            static_cast<uint64_t>(read_int(o.require("denominator", "a positive integer"), kPositive64));
    } else {
        v.expected(kRatioForm);
    }
    if (ratio.denominator == 0 || ratio.numerator > ratio.denominator) v.expected(kRatioForm);
    return ratio;
}

// One of an enum's values, by the name its to_string gives.
template <typename Enum, size_t N>
Enum read_enum(const Value& v, const std::array<Enum, N>& all, const std::string& what) {
    std::vector<std::string> names;
    for (Enum e : all) names.push_back(to_string(e));
    if (v.get().is_string()) {
        const std::string text = v.get().get<std::string>();
        for (Enum e : all) {
            if (text == to_string(e)) return e;
        }
        v.fail("expected " + what + ", one of: " + join(names) + "; found " + describe(v.get()) +
               suggestion(text, names));
    }
    v.fail("expected " + what + ", one of: " + join(names) + "; found " + describe(v.get()));
}

// Calls `each(element)` for every element of an array.
template <typename Each>
void for_each_element(const Value& v, const std::string& what, Each each) {
    if (!v.get().is_array()) v.expected(what);
    for (size_t i = 0; i < v.get().size(); ++i) each(v.child(i));
}

// {"min": duration, "max": duration} into any struct with Duration `min` and `max` (latencies,
// drawn durations), starting from `range`'s values.
template <typename MinMax>
MinMax read_min_max(const Value& v, MinMax range, bool allow_zero) {
    const Object o(v, {"min", "max"}, "an object {\"min\": duration, \"max\": duration}");
    if (auto x = o.get("min")) range.min = read_duration(*x, allow_zero);
    if (auto x = o.get("max")) range.max = read_duration(*x, allow_zero);
    if (range.max < range.min) {
        const Value where = o.has("max") ? *o.get("max") : *o.get("min");
        where.fail("expected max >= min, found min " + format_duration(range.min) + " and max " +
                   format_duration(range.max));
    }
    return range;
}

sim::LinkLatency read_latency(const Value& v, sim::LinkLatency latency) { return read_min_max(v, latency, true); }

// ---------------------------------------------------------------------------------------------
// The document

// "at most 2000000 records of all inputs together (the run limit kMaxInputRecords in
// scenarios/run_limits.h: raise it there and rebuild, or split the work over several scenarios)"
std::string within_limit(int64_t limit, const std::string& what, const char* constant) {
    return "at most " + std::to_string(limit) + " " + what + " (the run limit " + constant +
           " in scenarios/run_limits.h: raise it there and rebuild, or split the work over several scenarios)";
}

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
    void read_workload(const Value& v);
    void read_job(const Value& v);
    void read_vertex(const Value& v);
    void read_vertex_inputs(const Object& o, engine::VertexSpec& vertex);
    void read_sink(const Object& o, engine::VertexSpec& vertex);
    void check_vertices(const Value& v);
    void check_version_source(const Object& o, const engine::VertexSpec& sink);
    void read_checkpointing(const Value& v);
    void read_restart(const Value& v);
    void read_runtime(const Value& v);
    void read_input(const Value& v);
    void read_faults(const Value& v);
    void read_fault(const Value& v);
    void read_trigger(const Object& o, sim::FaultSpec& fault);
    void read_random_faults(const Value& v);
    void read_random_kinds(const Value& v, RandomFaults& r);
    void read_point_triggers(const Value& v, PointTriggers& p);
    void read_sometimes(const Value& v);
    std::vector<std::string> read_node_names(const Value& v);
    std::string read_node_name(const Value& v);
    // A registered outside system's name (scenarios/outside_system_registry.h), marked used by the run;
    // `batches`: it must accept bulk_partial_failure.
    std::string read_system_name(const Value& v, bool batches);
    std::vector<std::string> database_names() const;
    std::vector<std::string> read_system_names(const Value& v, bool batches);
    void use_outside_system(const std::string& name);
    void read_oracles(const Value& v);
    void read_expect(const Value& v);

    bool topic_exists(const std::string& name) const;
    std::vector<std::string> topic_names() const;
    std::vector<std::string> node_names() const;

    const std::string& file_;
    Scenario s_;
    std::set<std::string> listed_vertex_ids_;           // every vertex id in the file, read or not yet
    std::map<std::string, std::string> sink_topics_;    // topic -> sink vertex path
    std::map<std::string, std::string> source_topics_;  // topic -> source vertex path
    std::string quiet_after_path_;                      // where faults.random.quiet_after was read
    bool has_database_ = false;                         // the document has a "database" section
    int64_t input_records_ = 0;                         // of all inputs read so far
    int64_t topic_partitions_ = 0;                      // of all topics read so far
    std::vector<std::string> input_paths_;              // per input, its JSON path
    std::vector<std::pair<std::string, sim::Time>> fault_times_;  // per scheduled fault at a time: its "at" path
};

Scenario Loader::load(const json& document, const std::filesystem::path& path) {
    const Value root(document, "", file_);
    const Object o(
        root,
        {"name", "description", "world", "database", "job", "input", "faults", "oracles", "liveness_bound", "time_limit",
         "expect", "sometimes"},
        "an object (a scenario)");
    s_.source = path;
    s_.name = path.stem().string();
    if (auto x = o.get("name")) s_.name = read_string(*x);
    if (auto x = o.get("description")) {
        if (!x->get().is_string()) x->expected("a string");
        s_.description = x->get().get<std::string>();
    }
    has_database_ = o.has("database");
    read_world(o.require("world", "an object (the world)"));
    if (auto x = o.get("database")) read_database(*x);
    read_job(o.require("job", "an object (the job)"));
    if (auto x = o.get("input")) read_input(*x);
    if (auto x = o.get("faults")) read_faults(*x);
    read_oracles(o.require("oracles", "an array of oracle names"));
    if (auto x = o.get("liveness_bound")) s_.liveness_bound = read_duration(*x, false);
    if (auto x = o.get("time_limit")) s_.time_limit = read_duration(*x, false);
    if (auto x = o.get("expect")) read_expect(*x);
    if (auto x = o.get("sometimes")) read_sometimes(*x);
    if (!s_.expect.pass && !s_.expect.every_seed) {
        const std::string violation = std::string("oracle:") + to_string(s_.expect.violation);
        if (std::find(s_.sometimes.begin(), s_.sometimes.end(), violation) == s_.sometimes.end()) {
            s_.sometimes.push_back(violation);
        }
    }
    if (s_.time_limit > Duration::seconds(kMaxTimeLimitSeconds)) {
        o.get("time_limit")->expected(within_limit(kMaxTimeLimitSeconds, "seconds of virtual time", "kMaxTimeLimitSeconds"));
    }
    if (auto x = o.get("liveness_bound"); x && s_.liveness_bound > s_.time_limit) {
        x->fail("expected a liveness_bound within the time_limit (" + format_duration(s_.time_limit) + "), found " +
                format_duration(s_.liveness_bound) + ": the liveness oracle could never judge the run");
    }
    for (const auto& [path, at] : fault_times_) {
        if (at >= sim::Time::zero() + s_.time_limit) {
            throw ScenarioError(file_, path, "expected a time before the time_limit (" + format_duration(s_.time_limit) +
                                                 "), found " + format_duration(at - sim::Time::zero()) +
                                                 ": the fault would never fire");
        }
    }
    for (size_t i = 0; i < s_.inputs.size(); ++i) {
        // The producer writes `records` at `rate_per_second`: all of it must arrive before the limit.
        const InputSpec& in = s_.inputs[i];
        const int64_t seconds = in.records / in.rate_per_second;
        if (Duration::seconds(seconds) >= s_.time_limit) {
            throw ScenarioError(file_, input_paths_[i],
                                "expected an input that arrives within the time_limit (" + format_duration(s_.time_limit) +
                                    "), found " + std::to_string(in.records) + " records at " +
                                    std::to_string(in.rate_per_second) + " per second (" + std::to_string(seconds) +
                                    " s); raise rate_per_second or time_limit, or lower records");
        }
    }
    if (s_.random_faults && s_.random_faults->quiet_after >= s_.time_limit) {
        throw ScenarioError(file_, quiet_after_path_,
                            "expected quiet_after before the time_limit (" + format_duration(s_.time_limit) +
                                "), found " + format_duration(s_.random_faults->quiet_after));
    }
    return std::move(s_);
}

// --- world ---

void Loader::read_world(const Value& v) {
    const Object o(
        v, {"task_managers", "slots_per_task_manager", "spare_task_managers", "network", "storage", "kafka", "topics"});
    WorldSpec& w = s_.world;
    if (auto x = o.get("task_managers")) w.task_managers = read_int32(*x, IntRange{1, 1024, "a positive integer"});
    if (auto x = o.get("slots_per_task_manager")) {
        w.slots_per_task_manager = read_int32(*x, IntRange{1, 1024, "a positive integer"});
    }
    if (auto x = o.get("spare_task_managers")) {
        w.spare_task_managers = read_int32(*x, IntRange{0, 1024, "a non-negative integer"});
    }
    if (w.task_managers + w.spare_task_managers > kMaxTaskManagers) {
        (o.has("spare_task_managers") ? *o.get("spare_task_managers") : *o.get("task_managers"))
            .fail("expected " + within_limit(kMaxTaskManagers, "task managers and spares together", "kMaxTaskManagers") +
                  ", found " + std::to_string(w.task_managers) + " + " + std::to_string(w.spare_task_managers));
    }
    if (int64_t{w.task_managers} * w.slots_per_task_manager > kMaxSlots) {
        (o.has("slots_per_task_manager") ? *o.get("slots_per_task_manager") : *o.get("task_managers"))
            .fail("expected " + within_limit(kMaxSlots, "slots (task_managers x slots_per_task_manager)", "kMaxSlots") +
                  ", found " + std::to_string(w.task_managers) + " x " + std::to_string(w.slots_per_task_manager));
    }
    if (auto x = o.get("network")) read_network(*x);
    if (auto x = o.get("storage")) read_storage(*x);
    if (auto x = o.get("kafka")) read_kafka(*x);
    // A CDC job over a database needs no topic.
    if (!has_database_ || o.has("topics")) read_topics(o.require("topics", "an array of topics"));
}

void Loader::read_topics(const Value& v) {
    for_each_element(v, "an array of topics", [&](const Value& element) {
        const Object o(element, {"name", "partitions"}, "an object (a topic)");
        TopicSpec topic;
        const Value name = o.require("name", "a non-empty string");
        topic.name = read_string(name);
        if (topic_exists(topic.name)) name.fail("duplicate topic name " + in_quotes(topic.name));
        if (auto x = o.get("partitions")) {
            topic.partitions = read_int32(*x, IntRange{1, 100'000, "a positive integer"});
            if (topic_partitions_ + topic.partitions > kMaxTopicPartitions) {
                x->expected(within_limit(kMaxTopicPartitions - topic_partitions_,
                                         "partitions (of all topics together: " + std::to_string(kMaxTopicPartitions) + ")",
                                         "kMaxTopicPartitions"));
            }
        }
        topic_partitions_ += topic.partitions;
        s_.world.topics.push_back(topic);
    });
    if (s_.world.topics.empty()) v.fail("expected at least one topic, found an empty array");
}

void Loader::read_network(const Value& v) {
    const Object o(v, {"latency", "local_latency", "datagram_loss"});
    sim::NetworkOptions& n = s_.world.network;
    if (auto x = o.get("latency")) n.remote = read_latency(*x, n.remote);
    if (auto x = o.get("local_latency")) n.local = read_latency(*x, n.local);
    if (auto x = o.get("datagram_loss")) n.datagram_loss = read_ratio(*x);
}

void Loader::read_storage(const Value& v) {
    const Object o(v, {"latency", "failure"});
    sim::StorageOptions& st = s_.world.storage;
    if (auto x = o.get("latency")) st.latency = read_latency(*x, st.latency);
    if (auto x = o.get("failure")) st.failure = read_ratio(*x);
}

void Loader::read_kafka(const Value& v) {
    const Object o(v, {"transaction_timeout", "fencing", "read_committed_ignores_lso"});
    sim::external::KafkaOptions& k = s_.world.kafka;
    if (auto x = o.get("transaction_timeout")) k.transaction_timeout = read_duration(*x, false);
    if (auto x = o.get("fencing")) k.fencing = read_bool(*x);
    if (auto x = o.get("read_committed_ignores_lso")) k.read_committed_ignores_lso = read_bool(*x);
}

bool Loader::topic_exists(const std::string& name) const {
    return std::any_of(s_.world.topics.begin(), s_.world.topics.end(),
                       [&](const TopicSpec& t) { return t.name == name; });
}

std::vector<std::string> Loader::topic_names() const {
    std::vector<std::string> names;
    for (const TopicSpec& t : s_.world.topics) names.push_back(t.name);
    return names;
}

// "jobmanager", "tm0".."tm{N-1}", then the spares "tm{N}"..; then the outside systems.
std::vector<std::string> Loader::node_names() const {
    std::vector<std::string> names{"jobmanager"};
    for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
        names.push_back("tm" + std::to_string(i));
    }
    names.push_back("kafka");
    names.push_back("append-store");
    if (s_.database) names.push_back("mysql-source");
    if (s_.has_upsert_sink()) names.push_back("mysql-target");
    for (const std::string& system : outside_system_names()) names.push_back(system);  // each on its own node
    return names;
}

// --- database ---

void Loader::read_database(const Value& v) {
    const Object o(v, {"binlog", "tables", "workload"});
    DatabaseSpec& d = s_.database.emplace();
    if (auto x = o.get("binlog")) {
        const Object b(*x, {"file_bytes", "retain_files"});
        if (auto y = b.get("file_bytes")) {
            d.options.binlog_file_bytes = read_int(*y, IntRange{sim::external::Database::kEventBytes,
                                                               std::numeric_limits<int64_t>::max(),
                                                               "a number of bytes of at least one event (40)"});
        }
        if (auto y = b.get("retain_files")) d.options.retain_files = read_int32(*y, kNonNegative32);
    }
    const Value tables = o.require("tables", "an array of tables");
    for_each_element(tables, "an array of tables", [&](const Value& element) {
        const Object t(element, {"name", "initial_rows"}, "an object (a table)");
        sim::external::DatabaseTableSpec table;
        const Value name = t.require("name", "a non-empty string");
        table.name = read_string(name);
        for (const auto& other : d.tables) {
            if (other.name == table.name) name.fail("duplicate table name " + in_quotes(table.name));
        }
        if (auto x = t.get("initial_rows")) table.initial_rows = read_int(*x, IntRange{0, 10'000'000, "a non-negative integer"});
        d.tables.push_back(table);
    });
    if (d.tables.empty()) tables.fail("expected at least one table, found an empty array");
    read_workload(o.require("workload", "an object (the workload)"));
}

void Loader::read_workload(const Value& v) {
    const Object o(v, {"table", "transactions", "statements", "keys", "rate_per_second", "delete_ratio", "rollback_ratio",
                       "value_min", "value_max"});
    DatabaseSpec& d = *s_.database;
    sim::external::DatabaseWorkloadSpec& w = d.workload;
    const Value table = o.require("table", "the name of a table in /database/tables");
    w.table = read_string(table);
    std::vector<std::string> names;
    for (const auto& t : d.tables) names.push_back(t.name);
    if (std::find(names.begin(), names.end(), w.table) == names.end()) {
        table.expected("a table listed in /database/tables (" + join(names) + ")");
    }
    if (auto x = o.get("transactions")) w.transactions = read_int(*x, IntRange{0, 10'000'000, "a non-negative integer"});
    if (auto x = o.get("statements")) w.statements = read_int(*x, IntRange{1, 1000, "a positive integer"});
    if (auto x = o.get("keys")) w.keys = read_int(*x, IntRange{1, 1'000'000, "a positive integer"});
    if (auto x = o.get("rate_per_second")) w.rate_per_second = read_int(*x, IntRange{1, 1'000'000, "a positive integer"});
    if (auto x = o.get("delete_ratio")) w.delete_ratio = read_ratio(*x);
    if (auto x = o.get("rollback_ratio")) w.rollback_ratio = read_ratio(*x);
    // Positive values: a keyed sum over the changelog then returns to 0 exactly when a key has no rows left.
    if (auto x = o.get("value_min")) w.value_min = read_int(*x, IntRange{1, 1'000'000'000, "a positive integer"});
    if (auto x = o.get("value_max")) w.value_max = read_int(*x, IntRange{1, 1'000'000'000, "a positive integer"});
    if (w.value_max < w.value_min) {
        const Value where = o.has("value_max") ? *o.get("value_max") : *o.get("value_min");
        where.fail("expected value_max >= value_min, found " + std::to_string(w.value_min) + " and " +
                   std::to_string(w.value_max));
    }
}

// --- job ---

void Loader::read_job(const Value& v) {
    const Object o(v, {"name", "max_parallelism", "vertices", "checkpointing", "restart", "runtime"});
    engine::JobSpec& job = s_.job;
    if (auto x = o.get("name")) job.name = read_string(*x);
    if (auto x = o.get("max_parallelism")) {
        job.max_parallelism = read_int32(*x, IntRange{1, kMaxParallelismLimit, "a positive integer"});
    }
    const Value vertices = o.require("vertices", "an array of vertices");
    if (vertices.get().is_array()) {
        for (const json& vertex : vertices.get()) {
            if (!vertex.is_object() || !vertex.contains("id") || !vertex["id"].is_string()) continue;
            listed_vertex_ids_.insert(vertex["id"].get<std::string>());
        }
    }
    for_each_element(vertices, "an array of vertices", [&](const Value& element) { read_vertex(element); });
    check_vertices(vertices);
    if (auto x = o.get("checkpointing")) read_checkpointing(*x);
    if (s_.has_cdc_source() && !s_.job.checkpointing.enabled) {
        // A CDC source emits a snapshot chunk only once a completed checkpoint holds its watermark.
        throw ScenarioError(file_, v.path() + "/checkpointing/enabled",
                            "expected checkpointing enabled: a cdc_source emits its snapshot chunks only after a "
                            "checkpoint completes (engine/connectors/cdc_source.h)");
    }
    if (auto x = o.get("restart")) read_restart(*x);
    if (auto x = o.get("runtime")) read_runtime(*x);
}

bool is_source(engine::OperatorKind kind) { return engine::is_source_kind(kind); }
bool is_sink(engine::OperatorKind kind) { return kind == engine::OperatorKind::sink; }
bool is_keyed(engine::OperatorKind kind) {
    return kind == engine::OperatorKind::keyed_count || kind == engine::OperatorKind::keyed_sum;
}

std::vector<std::string> vertex_keys(engine::OperatorKind kind) {
    std::vector<std::string> keys{"id", "kind", "parallelism"};
    if (!is_source(kind)) keys.push_back("inputs");
    switch (kind) {
        case engine::OperatorKind::kafka_source: keys.push_back("topic"); break;
        case engine::OperatorKind::map: keys.push_back("map"); break;
        case engine::OperatorKind::filter: keys.push_back("filter"); break;
        case engine::OperatorKind::sink: keys.insert(keys.end(), {"sink", "options"}); break;
        case engine::OperatorKind::cdc_source: keys.insert(keys.end(), {"table", "chunk_size", "fetch_size"}); break;
        default: break;
    }
    keys.push_back("record_cost");
    return keys;
}

engine::MapSpec read_map(const Value& v) {
    const Object o(v, {"key_multiplier", "key_offset", "key_modulus", "value_multiplier", "value_offset"});
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
        f.drop_remainder = read_int(*x, IntRange{0, f.modulus - 1, "a non-negative integer below the modulus"});
    } else if (f.drop_remainder >= f.modulus) {
        o.get("modulus")->fail("expected a modulus above drop_remainder (" + std::to_string(f.drop_remainder) + ")");
    }
    return f;
}

void Loader::read_vertex(const Value& v) {
    if (!v.get().is_object()) v.expected("an object (a vertex)");
    const bool has_kind = v.get().contains("kind");
    const engine::OperatorKind kind =
        has_kind ? read_enum(v.child("kind"), kAllOperators, "a vertex kind") : engine::OperatorKind::map;
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
            .fail("expected a sink (sinks come last, after every other vertex), found " + in_quotes(to_string(kind)));
    }
    if (auto x = o.get("parallelism")) {
        const int32_t slots = s_.world.task_managers * s_.world.slots_per_task_manager;
        vertex.parallelism = read_int32(*x, kPositive32);
        if (vertex.parallelism > s_.job.max_parallelism) {
            x->expected("at most max_parallelism (" + std::to_string(s_.job.max_parallelism) + ")");
        }
        if (vertex.parallelism > slots) {
            x->expected("at most the slots of the task managers (" + std::to_string(s_.world.task_managers) + " x " +
                        std::to_string(s_.world.slots_per_task_manager) + " = " + std::to_string(slots) + ")");
        }
    }
    if (kind == engine::OperatorKind::kafka_source) {
        const Value topic = o.require("topic", "the name of a topic in /world/topics");
        vertex.topic = read_string(topic);
        if (!topic_exists(vertex.topic)) {
            topic.expected("a topic listed in /world/topics (" + join(topic_names()) + ")");
        }
        source_topics_.emplace(vertex.topic, v.path());
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
        // The chunks cover the keys the workload writes (and the initial rows); beyond, the last chunk.
        vertex.chunk_key_end = s_.database->workload.keys;
        for (const auto& t : s_.database->tables) vertex.chunk_key_end = std::max(vertex.chunk_key_end, t.initial_rows);
    }
    if (kind == engine::OperatorKind::sink) read_sink(o, vertex);
    if (auto x = o.get("record_cost")) vertex.record_cost = read_duration(*x, true);
    if (auto x = o.get("map")) vertex.map = read_map(*x);
    if (auto x = o.get("filter")) vertex.filter = read_filter(*x);
    if (!is_source(kind)) read_vertex_inputs(o, vertex);
    if (const auto* upsert = engine::upsert_sink_options(vertex); upsert != nullptr && upsert->version_guard) {
        check_version_source(o, vertex);
    }
    // A changelog flows from a CDC source through every vertex downstream of it.
    vertex.changelog_input = kind == engine::OperatorKind::cdc_source;
    for (const engine::InputEdge& edge : vertex.inputs) {
        if (s_.job.find(edge.from)->changelog_input) vertex.changelog_input = true;
    }
    s_.job.vertices.push_back(std::move(vertex));
}

// What a sink kind may ask of the world while it reads its options.
class LoaderSinkWorld final : public engine::SinkWorld {
public:
    // `use_system` is called for each registered outside system the kind asks for: the run builds it.
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
        if (find_outside_system(system) == nullptr) return false;
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
    const Value name = o.require("sink", "the name of a registered sink kind (" + join(registry.names()) + ")");
    vertex.sink_kind = read_string(name);
    const engine::SinkKind* kind = registry.find(vertex.sink_kind);
    if (kind == nullptr) {
        name.fail("expected a registered sink kind (" + join(registry.names()) + "), found " + in_quotes(vertex.sink_kind) +
                  suggestion(vertex.sink_kind, registry.names()));
    }
    const std::string options_path = o.value().path() + "/options";
    json options = json::object();
    if (auto x = o.get("options")) {
        if (!x->get().is_object()) x->expected("an object (the sink kind's options)");
        options = x->get();
    }
    try {
        engine::SinkOptions reader(options);
        const LoaderSinkWorld world(s_, source_topics_, [this](const std::string& system) { use_outside_system(system); });
        vertex.sink = kind->configure(reader, vertex.id, world);
        reader.finish();
    } catch (const engine::SinkOptionsError& e) {
        throw ScenarioError(file_, options_path + e.path(), e.expected());
    }
    if (const std::string topic = vertex.sink->kafka_topic(); !topic.empty()) sink_topics_.emplace(topic, o.value().path());
}

// A guarded upsert needs records that carry their row's own version: a CDC source's rows, reaching
// the sink through filters and key-preserving maps only (see engine/connectors/upsert_sink.h).
void Loader::check_version_source(const Object& o, const engine::VertexSpec& sink) {
    std::vector<const engine::VertexSpec*> pending{&sink};
    while (!pending.empty()) {
        const engine::VertexSpec* v = pending.back();
        pending.pop_back();
        const engine::MapSpec& m = v->map;
        const bool key_preserving_map = v->kind == engine::OperatorKind::map && m.key_multiplier == 1 &&
                                        m.key_offset == 0 && m.key_modulus == 0;
        const bool ok = v == &sink || v->kind == engine::OperatorKind::cdc_source ||
                        v->kind == engine::OperatorKind::filter || key_preserving_map;
        if (!ok) {
            const std::string why = "expected \"version_guard\": false (the guard needs the source row's version on "
                                    "every record: a cdc_source reaching the sink through filters and key-preserving "
                                    "maps only; " + in_quotes(v->id) + " (" + to_string(v->kind) + ") is in between)";
            throw ScenarioError(file_, o.value().path() + "/options/version_guard", why);
        }
        for (const engine::InputEdge& edge : v->inputs) pending.push_back(s_.job.find(edge.from));
    }
}

void Loader::read_vertex_inputs(const Object& o, engine::VertexSpec& vertex) {
    const Value inputs = o.require("inputs", "an array of inputs ({\"from\": vertex id, \"edge\": kind})");
    std::vector<std::string> earlier;
    for (const engine::VertexSpec& e : s_.job.vertices) {
        if (!is_sink(e.kind)) earlier.push_back(e.id);
    }
    for_each_element(inputs, "an array of inputs", [&](const Value& element) {
        const Object in(element, {"from", "edge"}, "an object ({\"from\": vertex id, \"edge\": kind})");
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
            from.fail("expected the id of an earlier, non-sink vertex (" + join(earlier) + "), found " +
                      in_quotes(edge.from) + why);
        }
        for (const engine::InputEdge& other : vertex.inputs) {
            if (other.from == edge.from) from.fail("vertex " + in_quotes(edge.from) + " is already an input");
        }
        if (auto x = in.get("edge")) edge.kind = read_enum(*x, kAllEdges, "an edge kind");
        const Value edge_at = in.has("edge") ? *in.get("edge") : Value(element.get(), element.path() + "/edge", file_);
        const std::string found = in_quotes(to_string(edge.kind)) + (in.has("edge") ? "" : " (the default)");
        if (is_keyed(vertex.kind) && edge.kind != engine::EdgeKind::hash) {
            edge_at.fail(std::string("expected \"hash\" (a ") + to_string(vertex.kind) +
                         " vertex reads keyed input), found " + found);
        }
        const engine::VertexSpec& upstream = s_.job.vertices[static_cast<size_t>(index)];
        if (edge.kind == engine::EdgeKind::forward && upstream.parallelism != vertex.parallelism) {
            edge_at.fail("a forward edge needs equal parallelism on both ends, found " + found + " from " +
                         in_quotes(upstream.id) + " (parallelism " + std::to_string(upstream.parallelism) + ") to " +
                         in_quotes(vertex.id) + " (parallelism " + std::to_string(vertex.parallelism) +
                         "); expected equal parallelism or a \"hash\" or \"rebalance\" edge");
        }
        vertex.inputs.push_back(edge);
    });
    if (vertex.inputs.empty()) inputs.fail("expected at least one input, found an empty array");
    if (vertex.kind == engine::OperatorKind::union_all && vertex.inputs.size() < 2) {
        inputs.fail("expected at least two inputs for a union, found " + std::to_string(vertex.inputs.size()));
    }
    if (vertex.kind != engine::OperatorKind::union_all && vertex.inputs.size() > 1) {
        inputs.fail("expected one input (only a union merges several), found " + std::to_string(vertex.inputs.size()));
    }
}

void Loader::check_vertices(const Value& v) {
    const auto& vertices = s_.job.vertices;
    if (vertices.empty()) v.fail("expected at least one vertex, found an empty array");
    if (!is_sink(vertices.back().kind)) {
        v.fail("expected the job to end in a sink (a vertex of kind \"sink\"), found none");
    }
    std::map<std::string, std::string> claimed;  // what a sink claims for itself -> its vertex path
    for (size_t i = 0; i < vertices.size(); ++i) {
        if (vertices[i].kind != engine::OperatorKind::sink) continue;
        const std::string path = v.path() + "/" + std::to_string(i);
        for (const std::string& claim : vertices[i].sink->claims()) {
            if (auto it = claimed.find(claim); it != claimed.end()) {
                throw ScenarioError(file_, path + "/options",
                                    "expected a sink that shares nothing with the others, found it uses " + claim +
                                        " as " + it->second + " does");
            }
            claimed.emplace(claim, path);
        }
    }
}

void Loader::read_checkpointing(const Value& v) {
    const Object o(
        v, {"enabled", "mode", "interval", "timeout", "min_pause", "max_concurrent", "tolerable_failures", "retained",
            "unaligned", "aligned_checkpoint_timeout"});
    engine::CheckpointConfig& c = s_.job.checkpointing;
    if (auto x = o.get("enabled")) c.enabled = read_bool(*x);
    if (auto x = o.get("mode")) c.mode = read_enum(*x, kAllModes, "a checkpointing mode");
    if (auto x = o.get("interval")) c.interval = read_duration(*x, false);
    if (auto x = o.get("timeout")) c.timeout = read_duration(*x, false);
    if (auto x = o.get("min_pause")) c.min_pause = read_duration(*x, true);
    if (auto x = o.get("max_concurrent")) c.max_concurrent = read_int32(*x, kPositive32);
    if (auto x = o.get("tolerable_failures")) c.tolerable_failures = read_int32(*x, kNonNegative32);
    if (auto x = o.get("retained")) c.retained = read_int32(*x, kPositive32);
    if (auto x = o.get("unaligned")) {
        c.unaligned = read_bool(*x);
        if (c.unaligned && c.mode != engine::CheckpointingMode::exactly_once) {
            x->fail("expected unaligned only with mode \"exactly_once\" (at-least-once checkpoints never align), found mode " +
                    in_quotes(engine::to_string(c.mode)));
        }
    }
    if (auto x = o.get("aligned_checkpoint_timeout")) {
        c.aligned_checkpoint_timeout = read_duration(*x, true);
        if (c.aligned_checkpoint_timeout > sim::Duration::zero() && !c.unaligned) {
            x->fail("expected aligned_checkpoint_timeout only with \"unaligned\": true (as in Flink, the timeout switches "
                    "an aligned checkpoint to unaligned)");
        }
    }
}

void Loader::read_restart(const Value& v) {
    const Object o(v, {"max_attempts", "delay"});
    if (auto x = o.get("max_attempts")) s_.job.restart.max_attempts = read_int32(*x, kNonNegative32);
    if (auto x = o.get("delay")) s_.job.restart.delay = read_duration(*x, true);
}

void Loader::read_runtime(const Value& v) {
    const Object o(v, {"record_cost", "buffer_timeout", "buffer_records", "channel_credits", "source_poll_interval",
                       "heartbeat_interval", "heartbeat_timeout", "deploy_timeout", "commit_retry_delay"});
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
    if (r.heartbeat_timeout <= r.heartbeat_interval) {
        const Value where = o.has("heartbeat_timeout") ? *o.get("heartbeat_timeout") : *o.get("heartbeat_interval");
        where.fail("expected heartbeat_timeout above heartbeat_interval, found " +
                   format_duration(r.heartbeat_timeout) + " and " + format_duration(r.heartbeat_interval));
    }
}

// --- input ---

void Loader::read_input(const Value& v) {
    for_each_element(v, "an array of inputs", [&](const Value& element) {
        const Object o(element, {"topic", "records", "keys", "rate_per_second", "value_min", "value_max", "hot_key_percent"},
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
        if (in.value_max < in.value_min) {
            const Value where = o.has("value_max") ? *o.get("value_max") : *o.get("value_min");
            where.fail("expected value_max >= value_min, found value_min " + std::to_string(in.value_min) +
                       " and value_max " + std::to_string(in.value_max));
        }
        s_.inputs.push_back(in);
    });
}

// --- faults ---

std::vector<std::string> fault_keys(sim::FaultKind kind) {
    std::vector<std::string> keys{"kind", "at", "at_point"};
    switch (kind) {
        case sim::FaultKind::crash: keys.insert(keys.end(), {"nodes", "restart", "restart_delay"}); break;
        case sim::FaultKind::pause: keys.insert(keys.end(), {"nodes", "duration"}); break;
        case sim::FaultKind::partition: keys.insert(keys.end(), {"nodes", "other_nodes", "one_way", "duration"}); break;
        case sim::FaultKind::slow_link: keys.insert(keys.end(), {"nodes", "multiplier", "duration"}); break;
        case sim::FaultKind::storage_slow: keys.insert(keys.end(), {"multiplier", "duration"}); break;
        case sim::FaultKind::storage_failure:
        case sim::FaultKind::broker_unavailable:
        case sim::FaultKind::kafka_write_failure: keys.push_back("duration"); break;
        case sim::FaultKind::transaction_abort: break;
        case sim::FaultKind::message_loss: keys.insert(keys.end(), {"messages", "ratio", "duration"}); break;
        case sim::FaultKind::system_unavailable:
        case sim::FaultKind::system_write_errors: keys.insert(keys.end(), {"system", "duration"}); break;
        case sim::FaultKind::bulk_partial_failure: keys.insert(keys.end(), {"system", "ratio", "duration"}); break;
    }
    return keys;
}

void Loader::read_faults(const Value& v) {
    const Object o(v, {"schedule", "random"}, "an object ({\"schedule\": [...], \"random\": {...}})");
    if (auto x = o.get("schedule")) {
        if (x->get().is_array() && x->get().size() > static_cast<size_t>(kMaxScheduledFaults)) {
            x->fail("expected " + within_limit(kMaxScheduledFaults, "scheduled faults", "kMaxScheduledFaults") + ", found " +
                    std::to_string(x->get().size()));
        }
        for_each_element(*x, "an array of faults", [&](const Value& e) { read_fault(e); });
    }
    if (auto x = o.get("random")) read_random_faults(*x);
}

void Loader::read_fault(const Value& v) {
    if (!v.get().is_object()) v.expected("an object (a fault)");
    if (!v.get().contains("kind")) Object(v, {"kind"}).missing("kind", "a fault kind");
    sim::FaultSpec fault;
    fault.kind = read_enum(v.child("kind"), kAllFaults, "a fault kind");
    const Object o(v, fault_keys(fault.kind), "an object (a fault)");
    read_trigger(o, fault);
    const bool at_point = !fault.trigger.point.empty();
    const bool targets_nodes = fault.kind == sim::FaultKind::crash || fault.kind == sim::FaultKind::pause ||
                               fault.kind == sim::FaultKind::partition || fault.kind == sim::FaultKind::slow_link;
    if (auto x = o.get("nodes")) fault.nodes = read_node_names(*x);
    const bool may_omit_nodes =
        at_point && (fault.kind == sim::FaultKind::crash || fault.kind == sim::FaultKind::pause);
    if (targets_nodes && fault.nodes.empty() && !may_omit_nodes) {
        const std::string what = "an array of node names (" + join(node_names()) + ")";
        if (!o.has("nodes")) o.missing("nodes", what);
        o.get("nodes")->fail("expected at least one node, found an empty array");
    }
    if (fault.kind == sim::FaultKind::slow_link && fault.nodes.size() != 2) {
        o.get("nodes")->fail("expected exactly two nodes (the ends of the link), found " +
                             std::to_string(fault.nodes.size()));
    }
    if (auto x = o.get("other_nodes")) {
        fault.other_nodes = read_node_names(*x);
        for (size_t i = 0; i < fault.other_nodes.size(); ++i) {
            if (std::find(fault.nodes.begin(), fault.nodes.end(), fault.other_nodes[i]) != fault.nodes.end()) {
                x->child(i).fail("expected a node not in \"nodes\", found " + in_quotes(fault.other_nodes[i]));
            }
        }
    }
    if (auto x = o.get("one_way")) fault.one_way = read_bool(*x);
    if (auto x = o.get("duration")) fault.duration = read_duration(*x, false);
    if (auto x = o.get("restart")) fault.restart = read_bool(*x);
    if (auto x = o.get("restart_delay")) fault.restart_delay = read_duration(*x, true);
    if (auto x = o.get("multiplier")) {
        fault.multiplier = static_cast<uint32_t>(read_int(*x, IntRange{1, 1'000'000, "a positive integer"}));
    }
    if (fault.kind == sim::FaultKind::message_loss) {
        std::vector<std::string> known;
        for (const sim::EventKind* kind : engine::messages::kAll) known.emplace_back(kind->name);
        const std::string what = "an array of control messages (" + join(known) + ")";
        const Value messages = o.require("messages", what);
        for_each_element(messages, what, [&](const Value& element) {
            const std::string name = element.get().is_string() ? element.get().get<std::string>() : "";
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                element.fail("expected a control message, one of: " + join(known) + "; found " + describe(element.get()) +
                             (name.empty() ? "" : suggestion(name, known)));
            }
            fault.messages.push_back(name);
        });
        if (fault.messages.empty()) messages.fail("expected at least one control message, found an empty array");
        if (auto x = o.get("ratio")) fault.ratio = read_ratio(*x);
    }
    if (targets_a_system(fault.kind)) {
        const bool batches = fault.kind == sim::FaultKind::bulk_partial_failure;
        fault.system = read_system_name(o.require("system", systems_expected(batches)), batches);
        if (auto x = o.get("ratio")) fault.ratio = read_ratio(*x);
    }
    s_.faults.push_back(std::move(fault));
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
        o.value().fail("expected a trigger: \"at\" (a time) or \"at_point\" ({\"point\": name, \"occurrence\": k})");
    }
    const Object p(*o.get("at_point"), {"point", "occurrence", "node", "not_after"},
                   "an object ({\"point\": name, \"occurrence\": k, \"node\": name})");
    std::vector<std::string> points;
    for (std::string_view point : engine::points::kAll) points.emplace_back(point);
    const Value point = p.require("point", "a protocol point name");
    if (!point.get().is_string() ||
        std::find(points.begin(), points.end(), point.get().get<std::string>()) == points.end()) {
        const std::string hint = point.get().is_string() ? suggestion(point.get().get<std::string>(), points) : "";
        point.fail("expected a protocol point, one of: " + join(points) + "; found " + describe(point.get()) + hint);
    }
    fault.trigger.point = point.get().get<std::string>();
    if (auto x = p.get("occurrence")) fault.trigger.occurrence = read_int32(*x, kPositive32);
    if (auto x = p.get("node")) fault.trigger.point_node = read_node_name(*x);
    if (auto x = p.get("not_after")) fault.trigger.not_after = sim::Time::zero() + read_duration(*x, true);
}

// --- random faults (faults.random; the generator is scenarios/random_faults.h) ---

constexpr std::array kRandomModes = {RandomMode::swarm, RandomMode::fixed};

std::vector<std::string> random_kind_keys(sim::FaultKind kind) {
    std::vector<std::string> keys{"weight"};
    switch (kind) {
        case sim::FaultKind::crash: keys.insert(keys.end(), {"nodes", "restart_delay"}); break;
        case sim::FaultKind::pause: keys.insert(keys.end(), {"nodes", "duration"}); break;
        case sim::FaultKind::partition: keys.insert(keys.end(), {"nodes", "duration", "one_way"}); break;
        case sim::FaultKind::slow_link: keys.insert(keys.end(), {"nodes", "duration", "multiplier"}); break;
        case sim::FaultKind::storage_slow: keys.insert(keys.end(), {"duration", "multiplier"}); break;
        case sim::FaultKind::storage_failure:
        case sim::FaultKind::broker_unavailable:
        case sim::FaultKind::kafka_write_failure: keys.push_back("duration"); break;
        case sim::FaultKind::transaction_abort: break;
        case sim::FaultKind::message_loss: keys.insert(keys.end(), {"messages", "ratio", "duration"}); break;
        case sim::FaultKind::system_unavailable:
        case sim::FaultKind::system_write_errors: keys.insert(keys.end(), {"systems", "duration"}); break;
        case sim::FaultKind::bulk_partial_failure: keys.insert(keys.end(), {"systems", "ratio", "duration"}); break;
    }
    return keys;
}

// The defaults of a drawn kind's duration (or a crash's restart delay).
DurationRange default_random_duration(sim::FaultKind kind) {
    switch (kind) {
        case sim::FaultKind::crash: return {Duration::millis(200), Duration::seconds(3)};
        case sim::FaultKind::pause: return {Duration::millis(200), Duration::seconds(3)};
        case sim::FaultKind::partition: return {Duration::millis(200), Duration::seconds(5)};
        case sim::FaultKind::storage_failure:
        case sim::FaultKind::broker_unavailable:
        case sim::FaultKind::kafka_write_failure:
        case sim::FaultKind::system_unavailable:
        case sim::FaultKind::system_write_errors:
        case sim::FaultKind::bulk_partial_failure: return {Duration::millis(100), Duration::seconds(2)};
        default: return {Duration::millis(500), Duration::seconds(5)};
    }
}


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
        return static_cast<__uint128_t>(a.numerator) * b.denominator < static_cast<__uint128_t>(b.numerator) * a.denominator;
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
            element.fail("expected a control message, one of: " + join(known) + "; found " + describe(element.get()) +
                         (name.empty() ? "" : suggestion(name, known)));
        }
        if (std::find(messages.begin(), messages.end(), name) != messages.end()) {
            element.fail("duplicate message " + in_quotes(name));
        }
        messages.push_back(name);
    });
    if (messages.empty()) v.fail("expected at least one control message, found an empty array");
    return messages;
}

// The node names a drawn kind targets by default: the TaskManagers that run tasks; partitions also
// the JobManager; slow links also the Kafka broker.
std::vector<std::string> default_random_nodes(sim::FaultKind kind, const WorldSpec& world) {
    std::vector<std::string> nodes;
    if (kind == sim::FaultKind::partition || kind == sim::FaultKind::slow_link) nodes.push_back("jobmanager");
    for (int32_t i = 0; i < world.task_managers; ++i) nodes.push_back("tm" + std::to_string(i));
    if (kind == sim::FaultKind::slow_link) nodes.push_back("kafka");
    return nodes;
}

void Loader::read_random_faults(const Value& v) {
    const Object o(v, {"mode", "count", "window", "quiet_after", "kinds", "point_triggers"},
                   "an object (random faults: {\"count\", \"quiet_after\", \"kinds\", ...})");
    RandomFaults r;
    if (auto x = o.get("mode")) r.mode = read_enum(*x, kRandomModes, "a random-fault mode");
    if (auto x = o.get("count")) {
        static const std::string kCountWhat =
            "a non-negative integer, " + within_limit(kMaxRandomFaults, "faults", "kMaxRandomFaults");
        const IntRange kCount{0, kMaxRandomFaults, kCountWhat.c_str()};
        if (x->get().is_number()) {
            r.count_min = r.count_max = read_int32(*x, kCount);
        } else {
            const Object c(*x, {"min", "max"}, "an integer or an object {\"min\": integer, \"max\": integer}");
            r.count_min = read_int32(c.require("min", "a non-negative integer"), kCount);
            r.count_max = read_int32(c.require("max", "a non-negative integer"), kCount);
            if (r.count_max < r.count_min) {
                c.get("max")->fail("expected max >= min, found min " + std::to_string(r.count_min) + " and max " +
                                   std::to_string(r.count_max));
            }
        }
    }
    r.quiet_after = read_duration(o.require("quiet_after", std::string("a positive duration ") + kDurationForm), false);
    r.window_to = r.quiet_after;
    if (auto x = o.get("window")) {
        const Object w(*x, {"from", "to"}, "an object {\"from\": duration, \"to\": duration}");
        if (auto y = w.get("from")) r.window_from = read_duration(*y, true);
        if (auto y = w.get("to")) r.window_to = read_duration(*y, false);
        const Value where = w.has("to") ? *w.get("to") : *w.get("from");
        if (r.window_to <= r.window_from) {
            where.fail("expected from < to, found from " + format_duration(r.window_from) + " and to " +
                       format_duration(r.window_to));
        }
        if (r.window_to > r.quiet_after) {
            where.fail("expected the window to end by quiet_after (" + format_duration(r.quiet_after) + "), found " +
                       format_duration(r.window_to));
        }
    }
    read_random_kinds(o.require("kinds", "an object of fault kinds ({\"crash\": {...}, ...})"), r);
    if (auto x = o.get("point_triggers")) read_point_triggers(*x, r.point_triggers);
    for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
        r.task_manager_nodes.push_back("tm" + std::to_string(i));
    }
    quiet_after_path_ = o.get("quiet_after")->path();
    s_.random_faults = std::move(r);
}

void Loader::read_random_kinds(const Value& v, RandomFaults& r) {
    std::vector<std::string> names;
    for (sim::FaultKind kind : kAllFaults) names.emplace_back(to_string(kind));
    const Object o(v, names, "an object of fault kinds ({\"crash\": {...}, ...})");
    for (sim::FaultKind kind : kAllFaults) {
        const std::optional<Value> entry = o.get(to_string(kind));
        if (!entry) continue;
        const Object k(*entry, random_kind_keys(kind), "an object (how this kind is drawn; {} for the defaults)");
        RandomFaultKind spec;
        spec.kind = kind;
        if (auto x = k.get("weight")) spec.weight = static_cast<uint32_t>(read_int(*x, IntRange{1, 1000, "a positive integer"}));
        const DurationRange defaults = default_random_duration(kind);
        spec.duration = defaults;
        spec.restart_delay = defaults;
        if (auto x = k.get("duration")) spec.duration = read_min_max(*x, defaults, false);
        if (auto x = k.get("restart_delay")) spec.restart_delay = read_min_max(*x, defaults, true);
        if (auto x = k.get("multiplier")) spec.multiplier = read_multiplier_range(*x);
        if (auto x = k.get("one_way")) spec.one_way = read_ratio(*x);
        const bool targets_nodes = kind == sim::FaultKind::crash || kind == sim::FaultKind::pause ||
                                   kind == sim::FaultKind::partition || kind == sim::FaultKind::slow_link;
        if (targets_nodes) {
            spec.nodes = default_random_nodes(kind, s_.world);
            if (auto x = k.get("nodes")) {
                spec.nodes = read_node_names(*x);
                const size_t least = kind == sim::FaultKind::slow_link ? 2 : 1;
                if (spec.nodes.size() < least) {
                    x->fail("expected at least " + std::to_string(least) + " node" + (least == 1 ? "" : "s") +
                            ", found " + std::to_string(spec.nodes.size()));
                }
            }
        }
        if (kind == sim::FaultKind::message_loss) {
            for (const sim::EventKind* message : engine::messages::kAll) spec.messages.emplace_back(message->name);
            if (auto x = k.get("messages")) spec.messages = read_control_messages(*x);
            if (auto x = k.get("ratio")) spec.ratio = read_ratio_range(*x);
        }
        if (targets_a_system(kind)) {
            const bool batches = kind == sim::FaultKind::bulk_partial_failure;
            spec.systems = read_system_names(k.require("systems", "an array of " + systems_expected(batches)), batches);
            spec.ratio = RatioRange{sim::Ratio{1, 10}, sim::Ratio{1, 2}};
            if (auto x = k.get("ratio")) spec.ratio = read_ratio_range(*x);
        }
        r.kinds.push_back(std::move(spec));
    }
    if (r.kinds.empty()) v.fail("expected at least one fault kind, found an empty object");
}

void Loader::read_point_triggers(const Value& v, PointTriggers& p) {
    const Object o(v, {"ratio", "points", "max_occurrence"},
                   "an object ({\"ratio\": ratio, \"points\": [...], \"max_occurrence\": k})");
    if (auto x = o.get("ratio")) p.ratio = read_ratio(*x);
    std::vector<std::string> known;
    for (std::string_view point : engine::points::kAll) known.emplace_back(point);
    p.points = known;
    if (auto x = o.get("points")) {
        p.points.clear();
        for_each_element(*x, "an array of protocol points", [&](const Value& element) {
            const std::string name = element.get().is_string() ? element.get().get<std::string>() : "";
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                element.fail("expected a protocol point, one of: " + join(known) + "; found " + describe(element.get()) +
                             (name.empty() ? "" : suggestion(name, known)));
            }
            if (std::find(p.points.begin(), p.points.end(), name) != p.points.end()) {
                element.fail("duplicate point " + in_quotes(name));
            }
            p.points.push_back(name);
        });
        if (p.points.empty()) x->fail("expected at least one protocol point, found an empty array");
    }
    if (auto x = o.get("max_occurrence")) p.max_occurrence = read_int32(*x, IntRange{1, 100'000, "a positive integer"});
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
    if (!v.get().is_string() || std::find(names.begin(), names.end(), v.get().get<std::string>()) == names.end()) {
        const std::string hint = v.get().is_string() ? suggestion(v.get().get<std::string>(), names) : "";
        v.fail("expected a node name, one of: " + join(names) + "; found " + describe(v.get()) + hint);
    }
    const std::string name = v.get().get<std::string>();
    if (find_outside_system(name) != nullptr) use_outside_system(name);  // a fault at its node needs it
    return name;
}

void Loader::use_outside_system(const std::string& name) {
    if (std::find(s_.outside_systems.begin(), s_.outside_systems.end(), name) == s_.outside_systems.end()) {
        s_.outside_systems.push_back(name);
    }
}

// The scenario's own databases (a CDC source's, an upsert sink's) take the generic outside-system
// faults too; they have no bulk requests. The job is read before the faults, so they are known.
std::vector<std::string> Loader::database_names() const {
    std::vector<std::string> names;
    if (s_.database) names.emplace_back("mysql-source");
    if (s_.has_upsert_sink()) names.emplace_back("mysql-target");
    return names;
}

std::string Loader::read_system_name(const Value& v, bool batches) {
    std::vector<std::string> names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (!batches || r.partial_batch_failures) names.emplace_back(r.name);
    }
    const std::vector<std::string> databases = batches ? std::vector<std::string>{} : database_names();
    names.insert(names.end(), databases.begin(), databases.end());
    if (!v.get().is_string() || std::find(names.begin(), names.end(), v.get().get<std::string>()) == names.end()) {
        const std::string hint = v.get().is_string() ? suggestion(v.get().get<std::string>(), names) : "";
        std::string expected = systems_expected(batches);
        if (!databases.empty()) expected += " or one of this scenario's databases (" + join(databases) + ")";
        v.fail("expected " + expected + "; found " + describe(v.get()) + hint);
    }
    const std::string name = v.get().get<std::string>();
    if (find_outside_system(name) != nullptr) use_outside_system(name);
    return name;
}

std::vector<std::string> Loader::read_system_names(const Value& v, bool batches) {
    std::vector<std::string> names;
    for_each_element(v, "an array of outside systems", [&](const Value& element) {
        std::string name = read_system_name(element, batches);
        if (std::find(names.begin(), names.end(), name) != names.end()) element.fail("duplicate system " + in_quotes(name));
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

// --- oracles and expectation ---

void Loader::read_oracles(const Value& v) {
    for_each_element(v, "an array of oracle names", [&](const Value& element) {
        const OracleKind oracle = read_enum(element, kAllOracles, "an oracle name");
        if (std::find(s_.oracles.begin(), s_.oracles.end(), oracle) != s_.oracles.end()) {
            element.fail("duplicate oracle " + in_quotes(to_string(oracle)));
        }
        const char* unsupported = nullptr;
        if (oracle == OracleKind::mirror && !(s_.has_cdc_source() && s_.has_upsert_sink())) {
            unsupported = "a CDC job writing an upsert sink (cdc_source ... upsert_sink)";
        } else if (oracle == OracleKind::no_key_backwards && !s_.has_upsert_sink()) {
            unsupported = "a job with an upsert_sink";
        } else if (oracle == OracleKind::state_after_restore && s_.has_cdc_source()) {
            unsupported = "a job without a cdc_source (its model of a restored prefix covers Kafka offsets only)";
        } else if (oracle == OracleKind::visibility && s_.has_cdc_source()) {
            unsupported = "a job reading or writing Kafka";
        }
        if (unsupported != nullptr) {
            element.fail("oracle " + in_quotes(to_string(oracle)) + " needs " + unsupported);
        }
        s_.oracles.push_back(oracle);
    });
    if (s_.oracles.empty()) v.fail("expected at least one oracle, found an empty array");
}

void Loader::read_expect(const Value& v) {
    constexpr const char* kForm = "\"pass\" or {\"violation\": oracle name}";
    if (v.get().is_string()) {
        if (v.get().get<std::string>() != "pass") v.expected(kForm);
        s_.expect = Expectation{};
        return;
    }
    const Object o(v, {"violation", "every_seed"}, kForm);
    const Value violation = o.require("violation", "an oracle listed in /oracles");
    s_.expect.pass = false;
    s_.expect.violation = read_enum(violation, kAllOracles, "an oracle name");
    if (std::find(s_.oracles.begin(), s_.oracles.end(), s_.expect.violation) == s_.oracles.end()) {
        std::vector<std::string> listed;
        for (OracleKind oracle : s_.oracles) listed.push_back(to_string(oracle));
        violation.expected("an oracle listed in /oracles (" + join(listed) + ")");
    }
    if (auto x = o.get("every_seed")) s_.expect.every_seed = read_bool(*x);
}

// ---------------------------------------------------------------------------------------------
// Parsing, with duplicate keys caught (nlohmann would silently keep the last one)

class DuplicateKeyGuard {
public:
    explicit DuplicateKeyGuard(const std::string& file) : file_(file) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start: frames_.emplace_back().array = false; break;
            case json::parse_event_t::array_start: frames_.emplace_back().array = true; break;
            case json::parse_event_t::key: {
                Frame& top = frames_.back();
                top.key = parsed.get<std::string>();
                if (!top.keys.insert(top.key).second) {
                    throw ScenarioError(file_, path(), "duplicate key " + in_quotes(top.key) + " in an object");
                }
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                frames_.pop_back();
                element_done();
                break;
            case json::parse_event_t::value: element_done(); break;
        }
        return true;
    }

private:
    struct Frame {
        bool array = false;
        size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };
    void element_done() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    }
    std::string path() const {
        std::string out;
        for (const Frame& f : frames_) out += "/" + (f.array ? std::to_string(f.index) : pointer_token(f.key));
        return out;
    }

    const std::string& file_;
    std::vector<Frame> frames_;
};

json parse_document(const std::string& text, const std::string& file) {
    try {
        return json::parse(text, DuplicateKeyGuard(file));
    } catch (const json::parse_error& e) {
        // Line and column of the byte where parsing stopped; nlohmann's message minus its prefix.
        const size_t end = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        size_t line = 1;
        size_t column = 1;
        for (size_t i = 0; i < end; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string message = e.what();
        if (const size_t at = message.find("column "); at != std::string::npos) {
            if (const size_t colon = message.find(": ", at); colon != std::string::npos) {
                message = message.substr(colon + 2);
            }
        }
        throw ScenarioError(file, "line " + std::to_string(line) + ", column " + std::to_string(column),
                            "invalid JSON: " + message);
    } catch (const json::out_of_range& e) {
        // A number no double holds (e.g. 1e999; found by the fuzzer): nlohmann says which, not where.
        std::string message = e.what();
        if (const size_t at = message.find("] "); at != std::string::npos) message = message.substr(at + 2);
        throw ScenarioError(file, "/", "invalid JSON: " + message);
    }
}

}  // namespace

std::optional<OracleKind> oracle_from_string(const std::string& name) {
    for (OracleKind kind : kAllOracles) {
        if (name == to_string(kind)) return kind;
    }
    return std::nullopt;
}

Scenario load_scenario(const std::filesystem::path& file) {
    const std::string file_name = file.string();
    std::error_code error;
    if (!std::filesystem::exists(file, error)) {
        throw ScenarioError(file_name, "/", "expected a scenario file, found no such file");
    }
    if (std::filesystem::is_directory(file, error)) {
        throw ScenarioError(file_name, "/", "expected a scenario file, found a directory");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ScenarioError(file_name, "/", "cannot open the file for reading");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ScenarioError(file_name, "/", "cannot read the file");
    return load_scenario_text(text.str(), file);
}

Scenario load_scenario_text(const std::string& text, const std::filesystem::path& file) {
    const std::string file_name = file.string();
    const json document = parse_document(text, file_name);
    return Loader(file_name).load(document, file);
}

}  // namespace eosim::scenarios
