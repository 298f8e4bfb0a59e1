#include "cli/run_values.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace eosim::cli {

namespace {

std::optional<uint64_t> parse_unsigned(const std::string& text) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    uint64_t n = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (n > (UINT64_MAX - digit) / 10) return std::nullopt;
        n = n * 10 + digit;
    }
    return n;
}

std::string trim(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::vector<uint64_t> parse_seed_set(const std::string& text, uint64_t max_seeds) {
    const std::string form =
        "expected seeds such as \"1..50\", \"7\" or \"1..10,20..30\", found \"" + text + "\"";
    std::vector<uint64_t> seeds;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        const std::string part = trim(
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        const size_t dots = part.find("..");
        const auto first = parse_unsigned(dots == std::string::npos ? part : part.substr(0, dots));
        const auto last = dots == std::string::npos ? first : parse_unsigned(part.substr(dots + 2));
        if (!first || !last) throw std::invalid_argument(form);
        if (*last < *first) {
            throw std::invalid_argument("expected a range A..B with A <= B, found \"" + part +
                                        "\"");
        }
        if (*last - *first >= max_seeds || seeds.size() + (*last - *first + 1) > max_seeds) {
            throw std::invalid_argument("expected at most " + std::to_string(max_seeds) +
                                        " seeds, found \"" + text + "\"");
        }
        for (uint64_t seed = *first;; ++seed) {
            seeds.push_back(seed);
            if (seed == *last) break;
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    return seeds;
}

Shard parse_shard(const std::string& text) {
    const std::string form =
        "expected a shard I/N with 1 <= I <= N (e.g. \"2/3\"), found \"" + text + "\"";
    const size_t slash = text.find('/');
    if (slash == std::string::npos) throw std::invalid_argument(form);
    const auto index = parse_unsigned(text.substr(0, slash));
    const auto total = parse_unsigned(text.substr(slash + 1));
    if (!index || !total || *total == 0 || *index == 0 || *index > *total || *total > 1'000'000) {
        throw std::invalid_argument(form);
    }
    return Shard{static_cast<uint32_t>(*index), static_cast<uint32_t>(*total)};
}

std::optional<Shard> shard_from_environment() {
    const char* index = std::getenv("TEST_SHARD_INDEX");
    const char* total = std::getenv("TEST_TOTAL_SHARDS");
    if (index == nullptr && total == nullptr) return std::nullopt;
    const std::optional<uint64_t> i =
        index != nullptr ? parse_unsigned(index) : std::optional<uint64_t>();
    const std::optional<uint64_t> n =
        total != nullptr ? parse_unsigned(total) : std::optional<uint64_t>();
    const uint64_t i_value = i.value_or(UINT64_MAX);
    const uint64_t n_value = n.value_or(0);
    if (n_value == 0 || i_value >= n_value || n_value > 1'000'000) {
        throw std::invalid_argument(
            "expected TEST_SHARD_INDEX (0-based) below TEST_TOTAL_SHARDS, both set, found TEST_SHARD_INDEX=" +
            std::string(index ? index : "(unset)") +
            " TEST_TOTAL_SHARDS=" + std::string(total ? total : "(unset)"));
    }
    return Shard{static_cast<uint32_t>(i_value + 1), static_cast<uint32_t>(n_value)};
}

double parse_duration_seconds(const std::string& text) {
    const std::string form =
        "expected a duration such as \"60s\", \"10m\", \"500ms\" or a number of seconds, found \"" +
        text + "\"";
    size_t end = 0;
    double value = 0;
    try {
        value = std::stod(text, &end);
    } catch (const std::exception&) {
        throw std::invalid_argument(form);
    }
    const std::string unit = text.substr(end);
    double scale = 0;
    if (unit.empty() || unit == "s") scale = 1;
    if (unit == "ms") scale = 1e-3;
    if (unit == "m") scale = 60;
    if (unit == "h") scale = 3600;
    if (scale == 0 || !std::isfinite(value) || value < 0 || text.empty() ||
        !(text[0] >= '0' && text[0] <= '9')) {
        throw std::invalid_argument(form);
    }
    return value * scale;
}

}  // namespace eosim::cli
