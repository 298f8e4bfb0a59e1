#pragma once
// Values a user types on the command line or in a suite file, parsed strictly: seed sets
// ("1..50", "7", "1..10,20..30"), shards ("2/3"), durations ("60s", "10m", "500ms", or a number
// of seconds) and sizes in megabytes. Each parser throws std::invalid_argument with a message that
// says what was expected.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eosim::cli {

// Seeds, sorted and without repeats. At most `max_seeds` of them (a guard against "1..1e18").
std::vector<uint64_t> parse_seed_set(const std::string& text, uint64_t max_seeds = 10'000'000);

// One shard of N (1-based on the command line: "1/3" .. "3/3").
struct Shard {
    uint32_t index = 1;
    uint32_t total = 1;
    bool operator==(const Shard&) const = default;
};
Shard parse_shard(const std::string& text);
// From TEST_SHARD_INDEX (0-based) and TEST_TOTAL_SHARDS, the variables Bazel and other runners set;
// nullopt when they are not set. Throws when they are set but malformed.
std::optional<Shard> shard_from_environment();
// Whether the run at `position` of the full, sorted run list belongs to the shard: round-robin,
// so shards differ in size by at most one and each gets a share of every scenario.
inline bool in_shard(size_t position, const Shard& shard) {
    return position % shard.total == shard.index - 1;
}

// Seconds, from "90", "90s", "1.5m", "500ms", "2h".
double parse_duration_seconds(const std::string& text);

}  // namespace eosim::cli
