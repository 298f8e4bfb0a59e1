// Implements scenarios/loader/json_value.h.
#include "scenarios/loader/json_value.h"

namespace eosim::scenarios::loading {

std::string in_quotes(std::string_view text) { return json(std::string(text)).dump(); }

struct DurationUnit {
    int64_t ns;
    std::string_view suffix;
};
// Largest first, for formatting.
constexpr DurationUnit kDurationUnits[] = {
    {3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"},
    {1'000'000, "ms"},        {1'000, "us"},         {1, "ns"}};

std::string format_duration(Duration d) {
    for (const DurationUnit& unit : kDurationUnits) {
        if (d.ns != 0 && d.ns % unit.ns == 0)
            return std::to_string(d.ns / unit.ns) + std::string(unit.suffix);
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
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
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

int64_t read_int(const Value& v, const IntRange& range) {
    const json& j = v.get();
    if (!j.is_number_integer()) v.expected(range.what);
    if (j.is_number_unsigned() &&
        j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        v.expected(std::string(range.what) + " (at most " + std::to_string(range.max) + ")");
    }
    const int64_t n = j.get<int64_t>();
    if (n < range.min) v.expected(range.what);
    if (n > range.max)
        v.expected(std::string(range.what) + " (at most " + std::to_string(range.max) + ")");
    return n;
}

int32_t read_int32(const Value& v, const IntRange& range) {
    return static_cast<int32_t>(read_int(v, range));
}

bool read_bool(const Value& v) {
    if (!v.get().is_boolean()) v.expected("true or false");
    return v.get().get<bool>();
}

std::string read_string(const Value& v, const char* what) {
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
    if (fraction_ns % fraction_scale != 0)
        return std::nullopt;  // not a whole number of nanoseconds
    const int64_t ns = whole * unit_ns + static_cast<int64_t>(fraction_ns / fraction_scale);
    if (ns > Duration::max().ns) return std::nullopt;
    return Duration::nanos(ns);
}

Duration read_duration(const Value& v, bool allow_zero) {
    const std::string what =
        std::string(allow_zero ? "a duration " : "a positive duration ") + kDurationForm;
    std::optional<Duration> d;
    if (v.get().is_number_integer()) {
        const int64_t ms = read_int(v, IntRange{0, Duration::max().ns / 1'000'000,
                                                "a non-negative integer of milliseconds"});
        d = Duration::millis(ms);
    } else if (v.get().is_string()) {
        d = parse_duration(v.get().get<std::string>());
    }
    if (!d || (!allow_zero && *d == Duration::zero())) v.expected(what);
    return *d;
}

constexpr const char* kRatioForm =
    "a ratio between 0 and 1 (\"1/100\" or {\"numerator\": 1, \"denominator\": 100})";

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
        ratio.numerator = static_cast<uint64_t>(
            read_int(o.require("numerator", "a non-negative integer"), kNonNegative64));
        ratio.denominator = static_cast<uint64_t>(
            read_int(o.require("denominator", "a positive integer"), kPositive64));
    } else {
        v.expected(kRatioForm);
    }
    if (ratio.denominator == 0 || ratio.numerator > ratio.denominator) v.expected(kRatioForm);
    return ratio;
}

sim::LinkLatency read_latency(const Value& v, sim::LinkLatency latency) {
    return read_min_max(v, latency, true);
}

std::string within_limit(int64_t limit, const std::string& what, const char* constant) {
    return "at most " + std::to_string(limit) + " " + what + " (the run limit " + constant +
           " in scenarios/run_limits.h: raise it there and rebuild, or split the work over several scenarios)";
}

}  // namespace eosim::scenarios::loading
