#pragma once
// Virtual time: the only clock the engine ever sees. Nanoseconds, as strong types, so an instant
// and a span cannot be mixed up and a bare integer never passes for either.
#include <compare>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace eosim::sim {

struct Duration {
    int64_t ns = 0;

    static constexpr Duration nanos(int64_t n) { return Duration{n}; }
    static constexpr Duration micros(int64_t n) { return Duration{n * 1'000}; }
    static constexpr Duration millis(int64_t n) { return Duration{n * 1'000'000}; }
    static constexpr Duration seconds(int64_t n) { return Duration{n * 1'000'000'000}; }
    static constexpr Duration zero() { return Duration{0}; }
    static constexpr Duration max() { return Duration{std::numeric_limits<int64_t>::max() / 4}; }

    constexpr int64_t millis_count() const { return ns / 1'000'000; }
    constexpr auto operator<=>(const Duration&) const = default;
    constexpr Duration operator+(Duration o) const { return Duration{ns + o.ns}; }
    constexpr Duration operator-(Duration o) const { return Duration{ns - o.ns}; }
    constexpr Duration operator*(int64_t k) const { return Duration{ns * k}; }
    constexpr Duration operator/(int64_t k) const { return Duration{ns / k}; }
    constexpr Duration& operator+=(Duration o) {
        ns += o.ns;
        return *this;
    }
};

// An instant of virtual time, counted from the start of the run.
struct Time {
    int64_t ns = 0;

    static constexpr Time zero() { return Time{0}; }
    static constexpr Time never() { return Time{std::numeric_limits<int64_t>::max() / 2}; }

    constexpr double seconds() const { return static_cast<double>(ns) / 1e9; }
    constexpr int64_t millis_count() const { return ns / 1'000'000; }
    constexpr auto operator<=>(const Time&) const = default;
    constexpr Time operator+(Duration d) const { return Time{ns + d.ns}; }
    constexpr Time operator-(Duration d) const { return Time{ns - d.ns}; }
    constexpr Duration operator-(Time o) const { return Duration{ns - o.ns}; }
    constexpr Time& operator+=(Duration d) {
        ns += d.ns;
        return *this;
    }
};

// "12.345s": seconds with millisecond digits, as messages and reports print a time or a span.
inline std::string seconds_text(int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3fs", static_cast<double>(ns) / 1e9);
    return text;
}
inline std::string seconds_text(Time t) { return seconds_text(t.ns); }
inline std::string seconds_text(Duration d) { return seconds_text(d.ns); }

}  // namespace eosim::sim
