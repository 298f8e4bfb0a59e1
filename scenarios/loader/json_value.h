#pragma once
// The loader's view of a JSON document: a value together with where it is in which file (so every
// error names the file and the JSON path), objects whose keys are checked, and the readers of
// scalars (integers in a range, durations, ratios, enums) that every section of the loader uses.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/sink_options.h"
#include "engine/vocabulary/job_spec.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios::loading {

using nlohmann::json;
using sim::Duration;

// ---------------------------------------------------------------------------------------------
// Text helpers

// `text` as a JSON string literal: "name".
std::string in_quotes(std::string_view text);
using engine::json_pointer_token;
constexpr auto pointer_token = json_pointer_token;
// The shortest exact form: "1500ms", "2s", "1h".
std::string format_duration(Duration d);
// " (did you mean "x"?)" when one candidate is close to `word`, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);
// "at most 2000000 records of all inputs together (the run limit kMaxInputRecords in
// scenarios/run_limits.h: raise it there and rebuild, or split the work over several scenarios)"
std::string within_limit(int64_t limit, const std::string& what, const char* constant);

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
    Value child(size_t index) const {
        return Value(value_->at(index), path_ + "/" + std::to_string(index), *file_);
    }

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
    Object(const Value& value, std::vector<std::string> allowed,
           const std::string& what = "an object")
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
constexpr IntRange kAny64{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                          "an integer"};

int64_t read_int(const Value& v, const IntRange& range);
int32_t read_int32(const Value& v, const IntRange& range);
bool read_bool(const Value& v);
std::string read_string(const Value& v, const char* what = "a non-empty string");
// "500ms", "2s", "1.5s", "10us", "1m", "1h", "250ns", or an integer number of milliseconds.
std::optional<Duration> parse_duration(std::string_view text);
inline constexpr const char* kDurationForm =
    "(a string such as \"500ms\", \"2s\", \"10us\", \"1m\", or an integer of milliseconds)";
Duration read_duration(const Value& v, bool allow_zero);
sim::Ratio read_ratio(const Value& v);
sim::LinkLatency read_latency(const Value& v, sim::LinkLatency latency);

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

}  // namespace eosim::scenarios::loading
