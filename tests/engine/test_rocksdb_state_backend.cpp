// The RocksDB keyed state backend (engine/state/rocksdb_state_backend.cpp) at the backend level:
// deterministic SST names and bytes across runs, incremental snapshots that upload only new files,
// restore from incremental snapshots (same range by import, and rescaled p=4 -> p=6 and p=4 -> p=3
// via temporary column families), deletions surviving restore, contents() from the cell cache
// agreeing with RocksDB, the canonical form round trip
// RocksDB -> heap at another parallelism -> RocksDB, and lookups through the cell cache (beyond its
// capacity, and after restores that fill it or do not fit in it).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/state/canonical_state_codec.h"
#include "engine/state/key_groups.h"
#include "engine/state/rocksdb_cell_cache.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {
namespace {

constexpr int32_t kRocksMaxParallelism = 128;

std::unique_ptr<KeyedStateBackend> rocksdb_backend(KeyGroupRange range, bool incremental,
                                                   const std::string& identity = "op-0-a1") {
    return make_state_backend(StateBackendOptions{StateBackendKind::rocksdb, incremental}, range,
                              kRocksMaxParallelism, identity);
}

std::vector<std::unique_ptr<KeyedStateBackend>> subtasks(int32_t parallelism, StateBackendKind kind,
                                                         bool incremental) {
    std::vector<std::unique_ptr<KeyedStateBackend>> out;
    for (int32_t s = 0; s < parallelism; ++s) {
        out.push_back(
            make_state_backend(StateBackendOptions{kind, incremental},
                               KeyGroupRange::of_subtask(s, parallelism, kRocksMaxParallelism),
                               kRocksMaxParallelism, "op-" + std::to_string(s) + "-a1"));
    }
    return out;
}

void apply(std::vector<std::unique_ptr<KeyedStateBackend>>& backends, int64_t key,
           std::optional<int64_t> value) {
    auto& backend = backends[static_cast<size_t>(
        subtask_for_key(key, kRocksMaxParallelism, static_cast<int32_t>(backends.size())))];
    if (value) {
        backend->put(key, *value);
    } else {
        backend->remove(key);
    }
}

// Writes a round of updates (and some deletions) into `backends` and the model.
void round(std::vector<std::unique_ptr<KeyedStateBackend>>& backends,
           std::map<int64_t, int64_t>& model, int64_t round_no, int64_t keys) {
    for (int64_t k = 0; k < keys; ++k) {
        const int64_t key = (k * 7919 + round_no * 13) % (keys * 3) - keys;
        if ((k + round_no) % 11 == 0) {
            apply(backends, key, std::nullopt);
            model.erase(key);
        } else {
            apply(backends, key, k * round_no + 1);
            model[key] = k * round_no + 1;
        }
    }
}

std::map<int64_t, int64_t> contents(
    const std::vector<std::unique_ptr<KeyedStateBackend>>& backends) {
    std::map<int64_t, int64_t> all;
    for (const auto& b : backends) {
        for (const auto& [k, v] : b->contents()) all[k] = v;
    }
    return all;
}

// The state of every subtask after snapshots 1..checkpoints, as checkpoint storage would hold it.
struct Stored {
    std::vector<std::string> private_states;
    std::map<std::string, std::string> shared;
};

Stored snapshot_all(std::vector<std::unique_ptr<KeyedStateBackend>>& backends,
                    int64_t checkpoint_id, Stored stored) {
    stored.private_states.clear();
    for (size_t s = 0; s < backends.size(); ++s) {
        IncrementalSnapshot snap = backends[s]->snapshot_incremental(
            checkpoint_id,
            "shared/op-" + std::to_string(s) + "-c" + std::to_string(checkpoint_id) + "-");
        for (auto& upload : snap.uploads) stored.shared[upload.key] = std::move(upload.bytes);
        stored.private_states.push_back(std::move(snap.private_state));
        backends[s]->checkpoint_confirmed(checkpoint_id);
    }
    return stored;
}

std::vector<IncrementalSnapshot> run_once() {
    auto backend = rocksdb_backend(KeyGroupRange{0, kRocksMaxParallelism - 1}, true);
    std::vector<IncrementalSnapshot> snapshots;
    for (int64_t c = 1; c <= 6; ++c) {
        for (int64_t k = 0; k < 2000; ++k) {
            if ((k + c) % 7 == 0) {
                backend->remove(k);
            } else {
                backend->put(k * c, k);
            }
        }
        snapshots.push_back(backend->snapshot_incremental(c, "shared/c" + std::to_string(c) + "-"));
        backend->checkpoint_confirmed(c);
    }
    return snapshots;
}

TEST_CASE("rocksdb backend: two runs give the same SST file names and bytes",
          "[state_backend][rocksdb]") {
    const auto first = run_once();
    const auto second = run_once();
    REQUIRE(first.size() == second.size());
    int64_t uploads = 0;
    for (size_t c = 0; c < first.size(); ++c) {
        CHECK(first[c].private_state == second[c].private_state);
        CHECK(first[c].shared_keys == second[c].shared_keys);
        REQUIRE(first[c].uploads.size() == second[c].uploads.size());
        for (size_t u = 0; u < first[c].uploads.size(); ++u) {
            CHECK(first[c].uploads[u].key == second[c].uploads[u].key);
            CHECK(first[c].uploads[u].bytes == second[c].uploads[u].bytes);
            ++uploads;
        }
    }
    CHECK(uploads >= 6);
    // A compaction happened (level 0 reached its trigger): a snapshot's files are not all new.
    CHECK(first.back().shared_keys.size() < static_cast<size_t>(uploads));
}

TEST_CASE("rocksdb backend: an incremental snapshot uploads only files not yet confirmed",
          "[state_backend][rocksdb]") {
    auto backend = rocksdb_backend(KeyGroupRange{0, kRocksMaxParallelism - 1}, true);
    for (int64_t k = 0; k < 5000; ++k) backend->put(k, k);
    const IncrementalSnapshot first = backend->snapshot_incremental(1, "shared/c1-");
    CHECK(first.uploads.size() == 1);
    backend->checkpoint_confirmed(1);
    backend->put(7, 70);
    const IncrementalSnapshot second = backend->snapshot_incremental(2, "shared/c2-");
    REQUIRE(second.uploads.size() == 1);
    CHECK(second.uploads.front().bytes.size() < first.uploads.front().bytes.size() / 10);
    CHECK(second.shared_keys.size() == 2);  // the first file by reference, the new one
    // Not confirmed (checkpoint 2 aborted): everything is uploaded again.
    backend->checkpoint_aborted(2);
    const IncrementalSnapshot third = backend->snapshot_incremental(3, "shared/c3-");
    CHECK(third.uploads.size() == third.shared_keys.size());
}

TEST_CASE("rocksdb backend: restore from incremental snapshots, same parallelism, keeps deletions",
          "[state_backend][rocksdb]") {
    auto before = subtasks(4, StateBackendKind::rocksdb, true);
    std::map<int64_t, int64_t> model;
    Stored stored;
    for (int64_t c = 1; c <= 5; ++c) {
        round(before, model, c, 3000);
        stored = snapshot_all(before, c, std::move(stored));
    }
    REQUIRE(contents(before) == model);
    auto after = subtasks(4, StateBackendKind::rocksdb, true);
    for (size_t s = 0; s < after.size(); ++s) {
        const auto keys = shared_keys_to_restore(
            stored.private_states,
            KeyGroupRange::of_subtask(static_cast<int32_t>(s), 4, kRocksMaxParallelism));
        std::map<std::string, std::string> files;
        for (const auto& key : keys) files[key] = stored.shared.at(key);
        after[s]->restore_incremental(stored.private_states, files);
    }
    CHECK(contents(after) == model);
    // contents() comes from the complete cell cache; cells() iterates RocksDB: the same plain
    // cells, after the restore and after writes and removals not yet handed to RocksDB.
    auto plain_cells = [](const KeyedStateBackend& backend) {
        std::map<int64_t, int64_t> plain;
        for (const auto& [at, value] : backend.cells()) {
            if (is_plain_cell(at)) plain[at.key] = value;
        }
        return plain;
    };
    for (const auto& backend : after) CHECK(backend->contents() == plain_cells(*backend));
    const auto first = after[0]->contents();
    REQUIRE(first.size() >= 2);
    after[0]->remove(first.begin()->first);
    after[0]->put(std::next(first.begin())->first, -7);
    CHECK(after[0]->contents().size() == first.size() - 1);
    CHECK(after[0]->contents() == plain_cells(*after[0]));
    // The restored instance refers to the restored files: an unchanged state uploads nothing.
    const IncrementalSnapshot next = after[1]->snapshot_incremental(6, "shared/after-");
    CHECK(next.uploads.empty());
    CHECK_FALSE(next.shared_keys.empty());
}

TEST_CASE("rocksdb backend: a same-range restore keeps the files' levels and compacts no sooner",
          "[state_backend][rocksdb]") {
    const KeyGroupRange all{0, kRocksMaxParallelism - 1};
    auto backend = rocksdb_backend(all, true);
    IncrementalSnapshot last;
    std::map<std::string, std::string> files;
    // A large first file; at checkpoint 4 level 0 holds 4 files and everything is compacted into
    // one deeper file; checkpoints 5-8 leave 4 small files on level 0 (fewer bytes than below).
    for (int64_t c = 1; c <= 8; ++c) {
        const int64_t keys = c == 1 ? 5000 : 100;
        for (int64_t k = 0; k < keys; ++k) backend->put(k * 13 + c, c);
        last = backend->snapshot_incremental(c, "shared/c" + std::to_string(c) + "-");
        for (auto& upload : last.uploads) files[upload.key] = std::move(upload.bytes);
        backend->checkpoint_confirmed(c);
    }
    REQUIRE(last.shared_keys.size() == 5);
    auto restored = rocksdb_backend(all, true, "op-0-a2");
    restored->restore_incremental({last.private_state}, files);
    restored->put(1, 1);
    // Were the 5 files all counted on level 0 (as RepairDB would put
    // them), they would be compacted and the whole state uploaded again. Imported at their
    // recorded levels, only the new small file is uploaded.
    const IncrementalSnapshot next = restored->snapshot_incremental(9, "shared/c9-");
    REQUIRE(next.uploads.size() == 1);
    CHECK(next.shared_keys.size() == 6);
    CHECK(static_cast<int64_t>(next.uploads.front().bytes.size()) * 10 < next.bytes_referenced);
}

TEST_CASE(
    "rocksdb backend: the file a rescaled restore writes counts as one sorted run below level 0",
    "[state_backend][rocksdb]") {
    auto before = rocksdb_backend(KeyGroupRange{0, kRocksMaxParallelism - 1}, true);
    for (int64_t k = 0; k < 5000; ++k) before->put(k, k);
    IncrementalSnapshot old = before->snapshot_incremental(1, "shared/old-");
    std::map<std::string, std::string> files;
    for (auto& upload : old.uploads) files[upload.key] = std::move(upload.bytes);
    const KeyGroupRange half = KeyGroupRange::of_subtask(0, 2, kRocksMaxParallelism);
    auto after = rocksdb_backend(half, true, "op-0-a2");
    after->restore_incremental({old.private_state}, files);
    int64_t key = 0;
    for (int64_t c = 1; c <= 4; ++c) {
        for (int64_t written = 0; written < 10; ++key) {
            if (!half.contains(key_group_of(key, kRocksMaxParallelism))) continue;
            after->put(key, -key);
            ++written;
        }
        const IncrementalSnapshot next =
            after->snapshot_incremental(c, "shared/new-c" + std::to_string(c) + "-");
        after->checkpoint_confirmed(c);
        // The first uploads the restored state's file too; then only each checkpoint's small file:
        // 4 small files on level 0 hold fewer entries than the restored run, so no compaction.
        CHECK(next.uploads.size() == (c == 1 ? 2u : 1u));
        CHECK(next.shared_keys.size() == static_cast<size_t>(c + 1));
    }
}

TEST_CASE("rocksdb backend: rescaled restore p=4 -> p=6 and p=4 -> p=3 from incremental snapshots",
          "[state_backend][rocksdb]") {
    auto before = subtasks(4, StateBackendKind::rocksdb, true);
    std::map<int64_t, int64_t> model;
    Stored stored;
    for (int64_t c = 1; c <= 4; ++c) {
        round(before, model, c, 3000);
        stored = snapshot_all(before, c, std::move(stored));
    }
    for (int32_t parallelism : {6, 3}) {
        auto after = subtasks(parallelism, StateBackendKind::rocksdb, true);
        for (int32_t s = 0; s < parallelism; ++s) {
            const KeyGroupRange range =
                KeyGroupRange::of_subtask(s, parallelism, kRocksMaxParallelism);
            std::map<std::string, std::string> files;
            for (const auto& key : shared_keys_to_restore(stored.private_states, range))
                files[key] = stored.shared.at(key);
            after[static_cast<size_t>(s)]->restore_incremental(stored.private_states, files);
            for (const auto& [key, value] : after[static_cast<size_t>(s)]->contents()) {
                CHECK(range.contains(key_group_of(key, kRocksMaxParallelism)));
            }
        }
        CHECK(contents(after) == model);
    }
}

TEST_CASE("rocksdb backend: canonical round trip RocksDB -> heap at another parallelism -> RocksDB",
          "[state_backend][rocksdb]") {
    auto rocks = subtasks(4, StateBackendKind::rocksdb, true);
    std::map<int64_t, int64_t> model;
    for (int64_t c = 1; c <= 3; ++c) round(rocks, model, c, 2000);
    std::vector<std::string> savepoint;
    for (const auto& b : rocks) savepoint.push_back(b->canonical_snapshot());

    auto heap = subtasks(6, StateBackendKind::heap, false);
    for (auto& b : heap) b->restore_canonical(savepoint);
    CHECK(contents(heap) == model);
    std::vector<std::string> heap_savepoint;
    for (const auto& b : heap) heap_savepoint.push_back(b->canonical_snapshot());

    auto back = subtasks(3, StateBackendKind::rocksdb, false);
    for (auto& b : back) b->restore_canonical(heap_savepoint);
    CHECK(contents(back) == model);
    // The same form, whichever backend wrote it: full RocksDB snapshots are the canonical form.
    std::vector<std::string> again;
    auto heap3 = subtasks(3, StateBackendKind::heap, false);
    for (auto& b : heap3) b->restore_canonical(heap_savepoint);
    for (size_t s = 0; s < 3; ++s) CHECK(back[s]->snapshot() == heap3[s]->canonical_snapshot());
}

// How many keys in [first, last) of `range` a lookup reads differently from `model`.
int64_t lookups_differing(const KeyedStateBackend& backend, KeyGroupRange range,
                          const std::map<int64_t, int64_t>& model, int64_t first, int64_t last) {
    int64_t differing = 0;
    for (int64_t key = first; key < last; ++key) {
        if (!range.contains(key_group_of(key, kRocksMaxParallelism))) continue;
        const auto known = model.find(key);
        const std::optional<int64_t> expected =
            known == model.end() ? std::nullopt : std::optional<int64_t>(known->second);
        if (backend.get(key) != expected) ++differing;
    }
    return differing;
}

TEST_CASE("rocksdb backend: lookups through the cell cache beyond its capacity and after restores",
          "[state_backend][rocksdb]") {
    const KeyGroupRange all{0, kRocksMaxParallelism - 1};
    const int64_t keys = static_cast<int64_t>(rocksdb_state::kCellCacheCapacity) +
                         5000;  // more cells than the cache holds
    auto backend = rocksdb_backend(all, true);
    std::map<int64_t, int64_t> model;
    for (int64_t key = 0; key < keys; ++key) {
        if (key % 7 == 3) continue;  // never written
        backend->put(key, key * 3);
        model[key] = key * 3;
    }
    CHECK(lookups_differing(*backend, all, model, -10, keys + 10) ==
          0);  // read from RocksDB past the overflow
    IncrementalSnapshot first = backend->snapshot_incremental(1, "shared/c1-");
    backend->checkpoint_confirmed(1);
    for (int64_t key = 0; key < keys;
         key += 11) {  // deletions of cells an older file holds, and increments
        backend->remove(key);
        model.erase(key);
        CHECK(backend->add(key + 1, 5) == model[key + 1] + 5);
        model[key + 1] += 5;
    }
    CHECK(lookups_differing(*backend, all, model, -10, keys + 10) == 0);
    IncrementalSnapshot second = backend->snapshot_incremental(2, "shared/c2-");
    std::map<std::string, std::string> files;
    for (auto* snapshot : {&first, &second}) {
        for (auto& upload : snapshot->uploads) files[upload.key] = std::move(upload.bytes);
    }
    const std::vector<std::string> private_states{second.private_state};

    // The same key groups: more cells than the cache holds, so lookups past them reach RocksDB.
    auto same = rocksdb_backend(all, true, "op-0-a2");
    same->restore_incremental(private_states, files);
    CHECK(lookups_differing(*same, all, model, -10, keys + 10) == 0);
    // Rescaled to 2: each half fits in the cache, which then knows every absent cell.
    for (int32_t s = 0; s < 2; ++s) {
        const KeyGroupRange range = KeyGroupRange::of_subtask(s, 2, kRocksMaxParallelism);
        auto half = rocksdb_backend(range, true, "op-" + std::to_string(s) + "-a2");
        half->restore_incremental(private_states, files);
        CHECK(lookups_differing(*half, range, model, -10, keys + 10) == 0);
    }
}

}  // namespace
}  // namespace eosim::engine
