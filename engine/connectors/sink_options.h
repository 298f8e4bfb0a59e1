#pragma once
// A sink vertex's "options" object, as its sink kind reads it. Every getter names the key it
// reads; a wrong value or (at `finish`) a key nobody read throws SinkOptionsError with the key's
// JSON path below "options" and what was expected, which the scenario loader turns into its usual
// error (file, full JSON path, expectation; exit code 2).
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace eosim::engine {

// How a found value reads in an error message: strings and numbers as written (cut at 60
// characters), containers by type ("an object", "an array"), null as "null". The scenario loader
// words its errors the same way.
std::string describe_json_value(const nlohmann::json& value);
// `key` as one JSON Pointer reference token (RFC 6901: "~" as "~0", "/" as "~1").
std::string json_pointer_token(std::string_view key);

class SinkOptionsError : public std::runtime_error {
public:
    SinkOptionsError(std::string path, const std::string& expected)
        : std::runtime_error(path + ": " + expected), path_(std::move(path)), expected_(expected) {}
    const std::string& path() const {
        return path_;
    }  // a JSON Pointer below "options", e.g. "/topic"
    const std::string& expected() const { return expected_; }

private:
    std::string path_;
    std::string expected_;
};

class SinkOptions {
public:
    // `options` must be an object (the loader checks); an absent "options" is an empty object.
    explicit SinkOptions(nlohmann::json options);

    bool has(const std::string& key) const;
    std::string string(const std::string& key, const std::string& fallback);
    std::string required_string(const std::string& key);
    int64_t integer(const std::string& key, int64_t fallback,
                    int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max());
    bool boolean(const std::string& key, bool fallback);
    // A required non-empty array of strings (e.g. a command's argv).
    std::vector<std::string> strings(const std::string& key);
    // One of `choices` (returns its index), or `fallback` when absent.
    size_t choice(const std::string& key, const std::vector<std::string>& choices, size_t fallback);
    // Throws for the first key no getter read ("unknown key ... expected one of ...").
    void finish() const;
    // Throws SinkOptionsError at `key` (for checks a getter cannot make).
    [[noreturn]] void fail(const std::string& key, const std::string& expected) const;

private:
    const nlohmann::json* find(const std::string& key);

    nlohmann::json options_;
    std::set<std::string> read_;
};

}  // namespace eosim::engine
