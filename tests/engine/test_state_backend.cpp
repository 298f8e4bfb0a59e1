// The heap keyed state backend (engine/state_backend.h) and key groups (engine/key_groups.h):
// get/put, add (both backends), snapshot/restore roundtrips, restore keeping only the key groups a
// subtask owns, rescaling (2 -> 3 subtasks loses and duplicates nothing), and key-group ranges
// partitioning [0, max_parallelism) in agreement with subtask_for_key_group.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {
namespace {

constexpr int32_t kBackendMaxParallelism = 128;

// A backend per subtask of a keyed vertex with `parallelism` subtasks.
std::vector<std::unique_ptr<KeyedStateBackend>> backends(
    int32_t parallelism, int32_t max_parallelism = kBackendMaxParallelism) {
    std::vector<std::unique_ptr<KeyedStateBackend>> out;
    for (int32_t s = 0; s < parallelism; ++s) {
        out.push_back(make_heap_state_backend(
            KeyGroupRange::of_subtask(s, parallelism, max_parallelism), max_parallelism));
    }
    return out;
}

// Puts every (key, value) into the subtask that owns its key group, as a hash edge routes it.
void fill(std::vector<std::unique_ptr<KeyedStateBackend>>& subtasks,
          const std::map<int64_t, int64_t>& entries,
          int32_t max_parallelism = kBackendMaxParallelism) {
    const auto parallelism = static_cast<int32_t>(subtasks.size());
    for (const auto& [key, value] : entries) {
        subtasks[static_cast<size_t>(subtask_for_key(key, max_parallelism, parallelism))]->put(
            key, value);
    }
}

std::map<int64_t, int64_t> sample_entries(int64_t keys) {
    std::map<int64_t, int64_t> entries;
    for (int64_t k = 0; k < keys; ++k) entries[k * 7919 - 500] = k * k + 1;
    return entries;
}

TEST_CASE("heap backend: get, put and overwrite", "[state_backend]") {
    auto backend = make_heap_state_backend(KeyGroupRange{0, kBackendMaxParallelism - 1},
                                           kBackendMaxParallelism);
    CHECK_FALSE(backend->get(5).has_value());
    backend->put(5, 10);
    backend->put(-3, 7);
    CHECK(backend->get(5) == 10);
    CHECK(backend->get(-3) == 7);
    backend->put(5, 11);
    CHECK(backend->get(5) == 11);
    CHECK(backend->contents() == std::map<int64_t, int64_t>{{-3, 7}, {5, 11}});
}

// add is get + put in one access: the keyed aggregates' hot path, overridden by the heap backend.
TEST_CASE("state backends: add is put(get or 0 + delta) and returns the new value",
          "[state_backend]") {
    for (const StateBackendKind kind : {StateBackendKind::heap, StateBackendKind::rocksdb}) {
        auto backend = make_state_backend(StateBackendOptions{kind, false},
                                          KeyGroupRange{0, kBackendMaxParallelism - 1},
                                          kBackendMaxParallelism, "add-0-a1");
        CHECK(backend->add(5, 3) == 3);  // absent: from 0
        CHECK(backend->add(5, -10) == -7);
        backend->put(-3, 40);
        CHECK(backend->add(-3, 2) == 42);
        CHECK(backend->add(8, 0) ==
              0);  // an absent key with nothing added is stored, as put(get or 0) does
        CHECK(backend->contents() == std::map<int64_t, int64_t>{{-3, 42}, {5, -7}, {8, 0}});
    }
}

TEST_CASE("heap backend: snapshot and restore roundtrip", "[state_backend]") {
    const auto entries = sample_entries(500);
    auto original = make_heap_state_backend(KeyGroupRange{0, kBackendMaxParallelism - 1},
                                            kBackendMaxParallelism);
    for (const auto& [key, value] : entries) original->put(key, value);
    const std::string snapshot = original->snapshot();

    auto restored = make_heap_state_backend(KeyGroupRange{0, kBackendMaxParallelism - 1},
                                            kBackendMaxParallelism);
    restored->put(424242, 1);  // replaced by the restore
    restored->restore({snapshot});
    CHECK(restored->contents() == entries);
    CHECK(restored->snapshot() == snapshot);  // deterministic byte for byte
    for (const auto& [key, value] : entries) CHECK(restored->get(key) == value);

    // A snapshot is self-contained: later puts on the original do not change it.
    original->put(entries.begin()->first, -1);
    auto again = make_heap_state_backend(KeyGroupRange{0, kBackendMaxParallelism - 1},
                                         kBackendMaxParallelism);
    again->restore({snapshot});
    CHECK(again->contents() == entries);

    // Restoring nothing empties the backend.
    again->restore({});
    CHECK(again->contents().empty());
    again->restore({std::string()});
    CHECK(again->contents().empty());
}

TEST_CASE("heap backend: a key of a key group the subtask does not own is a programmer error",
          "[state_backend]") {
    auto subtasks = backends(2);
    int64_t foreign = 0;
    while (subtask_for_key(foreign, kBackendMaxParallelism, 2) == 0) ++foreign;
    CHECK_THROWS_AS(subtasks[0]->put(foreign, 1), std::logic_error);
}

TEST_CASE("heap backend: restore keeps only the key groups the subtask owns", "[state_backend]") {
    const auto entries = sample_entries(400);
    auto whole = make_heap_state_backend(KeyGroupRange{0, kBackendMaxParallelism - 1},
                                         kBackendMaxParallelism);
    for (const auto& [key, value] : entries) whole->put(key, value);
    const std::string snapshot = whole->snapshot();

    for (int32_t parallelism : {1, 2, 3, 5}) {
        auto subtasks = backends(parallelism);
        std::map<int64_t, int64_t> merged;
        for (int32_t s = 0; s < parallelism; ++s) {
            subtasks[static_cast<size_t>(s)]->restore({snapshot});
            const KeyGroupRange range =
                KeyGroupRange::of_subtask(s, parallelism, kBackendMaxParallelism);
            for (const auto& [key, value] : subtasks[static_cast<size_t>(s)]->contents()) {
                INFO("parallelism " << parallelism << ", subtask " << s << ", key " << key);
                CHECK(range.contains(key_group_of(key, kBackendMaxParallelism)));
                CHECK(subtask_for_key(key, kBackendMaxParallelism, parallelism) == s);
                CHECK(merged.emplace(key, value).second);  // no key restored twice
            }
        }
        CHECK(merged == entries);
    }
}

TEST_CASE("heap backend: rescaling from 2 to 3 subtasks loses and duplicates nothing",
          "[state_backend]") {
    const auto entries = sample_entries(1000);
    auto before = backends(2);
    fill(before, entries);
    std::vector<std::string> snapshots;
    for (const auto& b : before) snapshots.push_back(b->snapshot());

    auto after = backends(3);
    std::map<int64_t, int64_t> merged;
    size_t total = 0;
    for (int32_t s = 0; s < 3; ++s) {
        after[static_cast<size_t>(s)]->restore(snapshots);
        const auto contents = after[static_cast<size_t>(s)]->contents();
        total += contents.size();
        merged.insert(contents.begin(), contents.end());
        CHECK_FALSE(contents.empty());
    }
    CHECK(total == entries.size());  // nothing duplicated across subtasks
    CHECK(merged == entries);        // nothing lost

    // And back down to 1.
    std::vector<std::string> rescaled;
    for (const auto& b : after) rescaled.push_back(b->snapshot());
    auto single = backends(1);
    single[0]->restore(rescaled);
    CHECK(single[0]->contents() == entries);
}

TEST_CASE("key groups: ranges partition 0..max_parallelism-1 and agree with subtask_for_key_group",
          "[state_backend]") {
    rc::prop("of_subtask is the inverse of subtask_for_key_group", [] {
        const int32_t max_parallelism = *rc::gen::inRange(1, 1 << 15);
        const int32_t parallelism = *rc::gen::inRange(1, std::min(max_parallelism, 300) + 1);
        int32_t next = 0;
        for (int32_t s = 0; s < parallelism; ++s) {
            const KeyGroupRange range = KeyGroupRange::of_subtask(s, parallelism, max_parallelism);
            RC_ASSERT(range.first == next);        // contiguous, no gap, no overlap
            RC_ASSERT(range.last >= range.first);  // never empty (parallelism <= max_parallelism)
            RC_ASSERT(subtask_for_key_group(range.first, max_parallelism, parallelism) == s);
            RC_ASSERT(subtask_for_key_group(range.last, max_parallelism, parallelism) == s);
            next = range.last + 1;
        }
        RC_ASSERT(next == max_parallelism);
        // Every key group, checked directly (for the smaller sizes).
        if (max_parallelism <= 2048) {
            for (int32_t kg = 0; kg < max_parallelism; ++kg) {
                const int32_t s = subtask_for_key_group(kg, max_parallelism, parallelism);
                RC_ASSERT(s >= 0);
                RC_ASSERT(s < parallelism);
                RC_ASSERT(KeyGroupRange::of_subtask(s, parallelism, max_parallelism).contains(kg));
            }
        }
        // Keys land in a key group inside [0, max_parallelism).
        const int64_t key = *rc::gen::arbitrary<int64_t>();
        const int32_t kg = key_group_of(key, max_parallelism);
        RC_ASSERT(kg >= 0);
        RC_ASSERT(kg < max_parallelism);
    });
}

TEST_CASE("heap backend: random rescaling preserves the union of the state", "[state_backend]") {
    rc::prop("restore under any old/new parallelism keeps every entry exactly once", [] {
        const int32_t max_parallelism = *rc::gen::inRange(1, 257);
        const int32_t old_parallelism = *rc::gen::inRange(1, std::min(max_parallelism, 8) + 1);
        const int32_t new_parallelism = *rc::gen::inRange(1, std::min(max_parallelism, 8) + 1);
        const auto entries = *rc::gen::container<std::map<int64_t, int64_t>>(
            rc::gen::arbitrary<int64_t>(), rc::gen::arbitrary<int64_t>());
        auto before = backends(old_parallelism, max_parallelism);
        fill(before, entries, max_parallelism);
        std::vector<std::string> snapshots;
        for (const auto& b : before) snapshots.push_back(b->snapshot());
        auto after = backends(new_parallelism, max_parallelism);
        std::map<int64_t, int64_t> merged;
        size_t total = 0;
        for (auto& b : after) {
            b->restore(snapshots);
            const auto contents = b->contents();
            total += contents.size();
            merged.insert(contents.begin(), contents.end());
        }
        RC_ASSERT(total == entries.size());
        RC_ASSERT(merged == entries);
    });
}

}  // namespace
}  // namespace eosim::engine
