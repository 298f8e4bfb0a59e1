// cli::run_values: seed sets, shards (the shards of a run list partition it exactly, whatever the
// list and the number of shards), the shard environment variables, and durations.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "cli/run_values.h"

namespace eosim::cli {
namespace {

TEST_CASE("seed sets: ranges, single seeds and lists, sorted without repeats", "[cli]") {
    CHECK(parse_seed_set("1..5") == std::vector<uint64_t>{1, 2, 3, 4, 5});
    CHECK(parse_seed_set("7") == std::vector<uint64_t>{7});
    CHECK(parse_seed_set("10..12, 1..2,11") == std::vector<uint64_t>{1, 2, 10, 11, 12});
    CHECK(parse_seed_set("0..0") == std::vector<uint64_t>{0});
    CHECK(parse_seed_set("18446744073709551615").back() == UINT64_MAX);
    for (const char* bad : {"", "a", "1..", "..5", "5..1", "1...3", "1-3", "-1", "1..2,", "1e3"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_seed_set(bad), std::invalid_argument);
    }
    CHECK_THROWS_WITH(parse_seed_set("1..100", 10), Catch::Contains("at most 10 seeds"));
}

TEST_CASE("shards: I/N parsed 1-based, bad ones refused", "[cli]") {
    CHECK(parse_shard("1/3") == Shard{1, 3});
    CHECK(parse_shard("3/3") == Shard{3, 3});
    for (const char* bad : {"0/3", "4/3", "1/0", "1", "/3", "a/b", "1/3/4", ""}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_shard(bad), std::invalid_argument);
    }
}

TEST_CASE("shards: TEST_SHARD_INDEX (0-based) and TEST_TOTAL_SHARDS", "[cli]") {
    ::unsetenv("TEST_SHARD_INDEX");
    ::unsetenv("TEST_TOTAL_SHARDS");
    CHECK_FALSE(shard_from_environment().has_value());
    ::setenv("TEST_SHARD_INDEX", "1", 1);
    ::setenv("TEST_TOTAL_SHARDS", "3", 1);
    CHECK(shard_from_environment() == Shard{2, 3});
    ::setenv("TEST_SHARD_INDEX", "3", 1);
    CHECK_THROWS_AS(shard_from_environment(), std::invalid_argument);
    ::unsetenv("TEST_TOTAL_SHARDS");
    CHECK_THROWS_AS(shard_from_environment(), std::invalid_argument);
    ::unsetenv("TEST_SHARD_INDEX");
}

TEST_CASE("shards partition a run list exactly: every run in one shard, sizes within one",
          "[cli]") {
    rc::prop("shards partition the positions", [](uint8_t total_byte, uint16_t runs_short) {
        const uint32_t total = 1 + total_byte % 40;
        const size_t runs = runs_short % 2000;
        std::vector<int> owner(runs, 0);
        std::vector<size_t> sizes;
        for (uint32_t index = 1; index <= total; ++index) {
            size_t size = 0;
            for (size_t position = 0; position < runs; ++position) {
                if (!in_shard(position, Shard{index, total})) continue;
                ++owner[position];
                ++size;
            }
            sizes.push_back(size);
        }
        RC_ASSERT(std::all_of(owner.begin(), owner.end(), [](int n) { return n == 1; }));
        RC_ASSERT(*std::max_element(sizes.begin(), sizes.end()) -
                      *std::min_element(sizes.begin(), sizes.end()) <=
                  1);
    });
}

TEST_CASE("durations: seconds by default, ms, s, m, h", "[cli]") {
    CHECK(parse_duration_seconds("90") == 90);
    CHECK(parse_duration_seconds("2.5s") == 2.5);
    CHECK(parse_duration_seconds("500ms") == 0.5);
    CHECK(parse_duration_seconds("10m") == 600);
    CHECK(parse_duration_seconds("1h") == 3600);
    for (const char* bad : {"", "s", "10 s", "-1s", "10x", "1e999", "nan"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_duration_seconds(bad), std::invalid_argument);
    }
}

}  // namespace
}  // namespace eosim::cli
