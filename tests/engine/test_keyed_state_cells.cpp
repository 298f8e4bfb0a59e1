// Namespaced keyed state (StateKey cells, engine/state/state_backend.h) in every backend: the
// int64-key API is the state-0/ns-0/item-0 cell; a state of only such cells encodes exactly as
// before cells existed; scan and scan_state are ordered; cells round-trip through
// snapshot/restore (heap, RocksDB full, RocksDB incremental), also at another parallelism (each
// cell goes with its key's key group); and the canonical form of each backend restores into the
// other at another parallelism with the same cells() (a property over random cells); RocksDB
// incremental checkpoints of namespaced cells with removals are deterministic (same SST bytes in
// two runs) and restore, also rescaled.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/state/blob_codec.h"
#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"
#include "tests/prop_with_cases.h"

namespace eosim::engine {
namespace {

constexpr int32_t kCellsMaxParallelism = 128;

// A backend and how its checkpoints are taken and restored.
enum class Flavour { heap, rocksdb_full, rocksdb_incremental };

const char* name_of(Flavour flavour) {
    switch (flavour) {
        case Flavour::heap: return "heap";
        case Flavour::rocksdb_full: return "rocksdb full";
        case Flavour::rocksdb_incremental: return "rocksdb incremental";
    }
    return "?";
}

const std::vector<Flavour> kFlavours = {Flavour::heap, Flavour::rocksdb_full,
                                        Flavour::rocksdb_incremental};

using Backends = std::vector<std::unique_ptr<KeyedStateBackend>>;

Backends cell_subtasks(Flavour flavour, int32_t parallelism) {
    const StateBackendOptions options{
        flavour == Flavour::heap ? StateBackendKind::heap : StateBackendKind::rocksdb,
        flavour == Flavour::rocksdb_incremental};
    Backends out;
    for (int32_t s = 0; s < parallelism; ++s) {
        out.push_back(make_state_backend(
            options, KeyGroupRange::of_subtask(s, parallelism, kCellsMaxParallelism),
            kCellsMaxParallelism, "op-" + std::to_string(s) + "-a1"));
    }
    return out;
}

KeyedStateBackend& owner(Backends& backends, int64_t key) {
    return *backends[static_cast<size_t>(
        subtask_for_key(key, kCellsMaxParallelism, static_cast<int32_t>(backends.size())))];
}

void fill_cells(Backends& backends, const std::map<StateKey, int64_t>& cells) {
    for (const auto& [at, value] : cells) owner(backends, at.key).put(at, value);
}

std::map<StateKey, int64_t> cells_of(const Backends& backends) {
    std::map<StateKey, int64_t> all;
    for (const auto& b : backends) {
        for (const auto& [at, value] : b->cells())
            CHECK(all.emplace(at, value).second);  // no cell in two subtasks
    }
    return all;
}

// Checkpoint storage across the checkpoints of one test: the shared files stay (an incremental
// snapshot refers to the files of the last confirmed one instead of uploading them again).
struct Storage {
    std::map<std::string, std::string> shared;
    int64_t next_checkpoint = 1;
};

// Checkpoints `before` (as its flavour does) and restores it into `parallelism` new subtasks.
Backends checkpoint_and_restore(Flavour flavour, Backends& before, int32_t parallelism,
                                Storage& storage) {
    Backends after = cell_subtasks(flavour, parallelism);
    if (flavour != Flavour::rocksdb_incremental) {
        std::vector<std::string> blobs;
        for (const auto& b : before) blobs.push_back(b->snapshot());
        for (auto& b : after) b->restore(blobs);
        return after;
    }
    std::vector<std::string> private_states;
    std::map<std::string, std::string>& shared = storage.shared;
    const int64_t checkpoint = storage.next_checkpoint++;
    for (size_t s = 0; s < before.size(); ++s) {
        IncrementalSnapshot snap = before[s]->snapshot_incremental(
            checkpoint, "shared/op-" + std::to_string(s) + "-c" + std::to_string(checkpoint) + "-");
        for (auto& upload : snap.uploads) shared[upload.key] = std::move(upload.bytes);
        private_states.push_back(std::move(snap.private_state));
        before[s]->checkpoint_confirmed(checkpoint);
    }
    for (int32_t s = 0; s < parallelism; ++s) {
        std::map<std::string, std::string> files;
        for (const auto& key : shared_keys_to_restore(
                 private_states, KeyGroupRange::of_subtask(s, parallelism, kCellsMaxParallelism))) {
            files[key] = shared.at(key);
        }
        after[static_cast<size_t>(s)]->restore_incremental(private_states, files);
    }
    return after;
}

// A mix of plain cells (state 0, ns 0, item 0), state-0 cells under negative and positive
// namespaces, other states, and reserved (negative) states.
std::map<StateKey, int64_t> sample_cells(int64_t keys) {
    std::map<StateKey, int64_t> cells;
    for (int64_t k = 0; k < keys; ++k) {
        const int64_t key = k * 7919 - 500;
        cells[StateKey{key}] = k + 1;
        if (k % 2 == 0) cells[StateKey{key, 0, -1000 - k, 3}] = -k;
        if (k % 3 == 0) cells[StateKey{key, 0, 5, -2}] = 2 * k;
        cells[StateKey{key, 1, k * 10, k}] = 7;
        cells[StateKey{key, 1, k * 10, k + 1}] = 8;
        if (k % 5 == 0) cells[StateKey{key, -1, 100 + k, 0}] = 1;
        if (k % 7 == 0) cells[StateKey{key, 2, INT64_MIN, INT64_MAX}] = INT64_MIN;
    }
    return cells;
}

TEST_CASE("keyed state cells: the int64-key API is the state-0/ns-0/item-0 cell",
          "[state_backend][cells]") {
    for (Flavour flavour : kFlavours) {
        INFO(name_of(flavour));
        auto backends = cell_subtasks(flavour, 1);
        KeyedStateBackend& b = *backends[0];
        b.put(5, 10);
        CHECK(b.get(StateKey{5}) == 10);
        b.put(StateKey{6, 0, 0, 0}, 11);
        CHECK(b.get(6) == 11);
        b.put(StateKey{6, 0, 1, 0}, 12);
        b.put(StateKey{6, 0, 0, 1}, 13);
        b.put(StateKey{6, 1, 0, 0}, 14);
        b.put(StateKey{6, -1, 0, 0}, 15);
        CHECK(b.get(6) == 11);
        CHECK(b.get(StateKey{6, 0, 1, 0}) == 12);
        CHECK(b.get(StateKey{6, 0, 0, 1}) == 13);
        CHECK(b.get(StateKey{6, 1, 0, 0}) == 14);
        CHECK(b.get(StateKey{6, -1, 0, 0}) == 15);
        CHECK_FALSE(b.get(StateKey{6, 2, 0, 0}).has_value());
        // contents() holds only the plain cells; cells() holds all of them.
        CHECK(b.contents() == std::map<int64_t, int64_t>{{5, 10}, {6, 11}});
        CHECK(b.cells().size() == 6);
        b.remove(StateKey{6});
        CHECK_FALSE(b.get(6).has_value());
        CHECK(b.get(StateKey{6, 0, 1, 0}) == 12);
        b.remove(StateKey{6, 0, 1, 0});
        b.put(StateKey{6, 0, 0, 1}, 16);  // overwrite
        CHECK(b.cells() == std::map<StateKey, int64_t>{{StateKey{5}, 10},
                                                       {StateKey{6, 0, 0, 1}, 16},
                                                       {StateKey{6, 1, 0, 0}, 14},
                                                       {StateKey{6, -1, 0, 0}, 15}});
        b.remove(StateKey{6, 9, 9, 9});  // removing a missing cell is fine
    }
}

TEST_CASE("keyed state cells: a state of plain cells encodes exactly as before cells existed",
          "[state_backend][cells]") {
    // The pre-cells format, written out by hand: per non-empty key group ascending, the key group,
    // the count and the (key, value) pairs in key order.
    std::map<int64_t, int64_t> entries;
    for (int64_t k = 0; k < 300; ++k) entries[k * 7919 - 500] = k * k + 1;
    std::map<int32_t, std::map<int64_t, int64_t>> by_group;
    for (const auto& [key, value] : entries)
        by_group[key_group_of(key, kCellsMaxParallelism)][key] = value;
    BlobWriter expected;
    for (const auto& [group, pairs] : by_group) {
        expected.put_i64(group);
        expected.put_i64(static_cast<int64_t>(pairs.size()));
        for (const auto& [key, value] : pairs) {
            expected.put_i64(key);
            expected.put_i64(value);
        }
    }
    const std::string old_bytes = expected.take();
    for (Flavour flavour : kFlavours) {
        INFO(name_of(flavour));
        auto backends = cell_subtasks(flavour, 1);
        for (const auto& [key, value] : entries) backends[0]->put(StateKey{key}, value);
        backends[0]->put(StateKey{1, 3, 4, 5},
                         6);  // a namespaced cell, removed again: no trace left
        backends[0]->remove(StateKey{1, 3, 4, 5});
        CHECK(backends[0]->canonical_snapshot() == old_bytes);
        // And old bytes restore.
        auto restored = cell_subtasks(flavour, 1);
        restored[0]->restore_canonical({old_bytes});
        CHECK(restored[0]->contents() == entries);
    }
}

TEST_CASE("keyed state cells: scan and scan_state are ordered", "[state_backend][cells]") {
    const auto cells = sample_cells(60);
    for (Flavour flavour : kFlavours) {
        INFO(name_of(flavour));
        auto backends = cell_subtasks(flavour, 2);
        fill_cells(backends, cells);
        for (int32_t state : {0, 1, 2, -1, 5}) {
            // scan: one key's cells of one state, ordered by (ns, item).
            for (int64_t k : {0, 1, 2, 3, 14, 30}) {
                const int64_t key = k * 7919 - 500;
                std::vector<StateKey> seen;
                owner(backends, key).scan(key, state, [&seen](const StateKey& at, int64_t) {
                    seen.push_back(at);
                });
                std::vector<StateKey> expected;
                for (const auto& [at, value] : cells) {
                    if (at.key == key && at.state == state) expected.push_back(at);
                }
                CHECK(seen == expected);  // cells is ordered by (key, state, ns, item)
            }
            // scan_state: ordered by (key group, key, ns, item), each with its value.
            for (const auto& b : backends) {
                std::vector<std::pair<StateKey, int64_t>> seen;
                b->scan_state(state, [&seen](const StateKey& at, int64_t value) {
                    seen.emplace_back(at, value);
                });
                std::map<std::tuple<int32_t, int64_t, int64_t, int64_t>,
                         std::pair<StateKey, int64_t>>
                    expected;
                for (const auto& [at, value] : b->cells()) {
                    if (at.state == state)
                        expected[{key_group_of(at.key, kCellsMaxParallelism), at.key, at.ns,
                                  at.item}] = {at, value};
                }
                std::vector<std::pair<StateKey, int64_t>> expected_order;
                for (const auto& [order, cell] : expected) expected_order.push_back(cell);
                CHECK(seen == expected_order);
                if (state == 0)
                    CHECK(seen.size() >
                          30);  // the merge of plain and namespaced state-0 cells is exercised
            }
        }
    }
}

TEST_CASE("keyed state cells: round trip through snapshot and restore, also rescaled",
          "[state_backend][cells]") {
    const auto cells = sample_cells(400);
    for (Flavour flavour : kFlavours) {
        INFO(name_of(flavour));
        auto before = cell_subtasks(flavour, 4);
        fill_cells(before, cells);
        REQUIRE(cells_of(before) == cells);
        Storage storage;
        for (int32_t parallelism : {4, 6, 3}) {
            INFO("to parallelism " << parallelism);
            auto after = checkpoint_and_restore(flavour, before, parallelism, storage);
            CHECK(cells_of(after) == cells);
            for (int32_t s = 0; s < parallelism; ++s) {
                const KeyGroupRange range =
                    KeyGroupRange::of_subtask(s, parallelism, kCellsMaxParallelism);
                for (const auto& [at, value] : after[static_cast<size_t>(s)]->cells()) {
                    CHECK(range.contains(key_group_of(at.key, kCellsMaxParallelism)));
                }
            }
            // The restored state goes on working: a write and a removal after the restore.
            const StateKey first = cells.begin()->first;
            owner(after, first.key).remove(first);
            owner(after, 77).put(StateKey{77, 3, -4, 5}, 9);
            auto expected = cells;
            expected.erase(first);
            expected[StateKey{77, 3, -4, 5}] = 9;
            CHECK(cells_of(after) == expected);
        }
    }
}

// Rounds of namespaced writes and removals in 3 RocksDB subtasks with incremental checkpoints.
struct IncrementalRun {
    std::vector<std::vector<std::string>> private_states;  // per checkpoint, per subtask
    Storage storage;
    std::map<StateKey, int64_t> model;
};

IncrementalRun run_incremental_rounds() {
    IncrementalRun run;
    auto backends = cell_subtasks(Flavour::rocksdb_incremental, 3);
    for (int64_t round = 1; round <= 4; ++round) {
        for (int64_t k = 0; k < 300; ++k) {
            const int64_t key = (k * 31 + round) % 200 - 100;
            const StateKey at{key, static_cast<int32_t>(k % 3) - 1, (k * round) % 17 - 8, k % 4};
            if ((k + round) % 5 == 0) {
                owner(backends, key).remove(at);
                run.model.erase(at);
            } else {
                owner(backends, key).put(at, k * round);
                run.model[at] = k * round;
            }
        }
        std::vector<std::string> privates;
        const int64_t checkpoint = run.storage.next_checkpoint++;
        for (size_t s = 0; s < backends.size(); ++s) {
            IncrementalSnapshot snap = backends[s]->snapshot_incremental(
                checkpoint,
                "shared/op-" + std::to_string(s) + "-c" + std::to_string(checkpoint) + "-");
            for (auto& upload : snap.uploads)
                run.storage.shared[upload.key] = std::move(upload.bytes);
            privates.push_back(std::move(snap.private_state));
            backends[s]->checkpoint_confirmed(checkpoint);
        }
        run.private_states.push_back(std::move(privates));
    }
    REQUIRE(cells_of(backends) == run.model);
    return run;
}

TEST_CASE(
    "keyed state cells: RocksDB incremental checkpoints of namespaced cells with removals, deterministic, restored and rescaled",
    "[state_backend][cells]") {
    const IncrementalRun first = run_incremental_rounds();
    const IncrementalRun second = run_incremental_rounds();
    CHECK(first.private_states == second.private_states);
    CHECK(first.storage.shared == second.storage.shared);  // the same SST names and bytes
    for (int32_t parallelism : {3, 2, 5}) {
        INFO("to parallelism " << parallelism);
        Backends after = cell_subtasks(Flavour::rocksdb_incremental, parallelism);
        for (int32_t s = 0; s < parallelism; ++s) {
            std::map<std::string, std::string> files;
            for (const auto& key : shared_keys_to_restore(
                     first.private_states.back(),
                     KeyGroupRange::of_subtask(s, parallelism, kCellsMaxParallelism))) {
                files[key] = first.storage.shared.at(key);
            }
            after[static_cast<size_t>(s)]->restore_incremental(first.private_states.back(), files);
        }
        CHECK(cells_of(after) == first.model);
    }
}

TEST_CASE(
    "keyed state cells: the canonical form of each backend restores into the others at another parallelism",
    "[state_backend][cells]") {
    testing::prop_with_cases("same cells() whichever backend wrote the canonical form", 40, [] {
        const auto keys = rc::gen::inRange<int64_t>(-40, 40);
        const auto cells = *rc::gen::container<std::map<StateKey, int64_t>>(
            rc::gen::build<StateKey>(
                rc::gen::set(&StateKey::key, keys),
                rc::gen::set(&StateKey::state, rc::gen::inRange(-2, 3)),
                rc::gen::set(&StateKey::ns, rc::gen::oneOf(rc::gen::inRange<int64_t>(-3, 3),
                                                           rc::gen::arbitrary<int64_t>())),
                rc::gen::set(&StateKey::item, rc::gen::inRange<int64_t>(-2, 2))),
            rc::gen::arbitrary<int64_t>());
        const Flavour writer = *rc::gen::elementOf(kFlavours);
        const Flavour reader = *rc::gen::elementOf(kFlavours);
        const int32_t old_parallelism = *rc::gen::inRange(1, 5);
        const int32_t new_parallelism = *rc::gen::inRange(1, 5);
        auto before = cell_subtasks(writer, old_parallelism);
        fill_cells(before, cells);
        std::vector<std::string> savepoint;
        for (const auto& b : before) savepoint.push_back(b->canonical_snapshot());
        auto after = cell_subtasks(reader, new_parallelism);
        for (auto& b : after) b->restore_canonical(savepoint);
        std::map<StateKey, int64_t> restored;
        for (const auto& b : after) {
            const auto part = b->cells();
            restored.insert(part.begin(), part.end());
        }
        RC_ASSERT(restored == cells);
        // The canonical form is the same whichever backend writes it.
        auto heap = cell_subtasks(Flavour::heap, new_parallelism);
        for (auto& b : heap) b->restore_canonical(savepoint);
        for (size_t s = 0; s < after.size(); ++s)
            RC_ASSERT(after[s]->canonical_snapshot() == heap[s]->canonical_snapshot());
    });
}

}  // namespace
}  // namespace eosim::engine
