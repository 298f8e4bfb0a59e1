// The embedded RocksDB keyed state backend (Flink's EmbeddedRocksDBStateBackend), over Debian's
// librocksdb. How it stays deterministic, and how it restores, is in engine/state/README.md.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "engine/state/blob_codec.h"
#include "engine/state/canonical_state_codec.h"
#include "engine/state/key_groups.h"
#include "engine/state/rocksdb_cell_cache.h"
#include "engine/state/rocksdb_encoding.h"
#include "engine/state/rocksdb_instance.h"
#include "engine/state/state_backend.h"
#include "sim/trace.h"

namespace eosim::engine {

namespace {

using namespace rocksdb_state::encoding;
using rocksdb_state::check;
using rocksdb_state::Instance;
using rocksdb_state::read_options;
using rocksdb_state::write_options;

// Deterministic triggers instead of RocksDB's own: the memtable is flushed after this many writes
// (and at every snapshot); a snapshot compacts everything into one sorted run when level 0 holds at
// least kLevel0FilesPerCompaction files and at least as many entries as the levels below (so the
// rewrite of the whole state, which the next incremental checkpoint uploads, happens once per
// state-sized amount of new data, not every few checkpoints), or kLevel0FilesLimit files.
constexpr int64_t kWritesPerFlush = 65536;
constexpr int64_t kLevel0FilesPerCompaction = 4;
constexpr int64_t kLevel0FilesLimit = 32;

bool overlaps(KeyGroupRange a, KeyGroupRange b) { return a.first <= b.last && b.first <= a.last; }

using rocksdb_state::CellCache;

class RocksDbStateBackend final : public KeyedStateBackend {
public:
    RocksDbStateBackend(KeyGroupRange range, int32_t max_parallelism,
                        const StateBackendOptions& options, const std::string& identity)
        : range_(range),
          max_parallelism_(max_parallelism),
          incremental_(options.incremental),
          clip_on_rescale_(options.clip_on_rescale),
          identity_digest_(digest_of(identity)) {}

    std::optional<int64_t> get(int64_t key) const override {
        return lookup(encode_key(owned_group(key), key));
    }
    void put(int64_t key, int64_t value) override {
        write(encode_key(owned_group(key), key), value);
    }
    void remove(int64_t key) override { write(encode_key(owned_group(key), key), std::nullopt); }

    // One lookup in the cell cache, and in RocksDB only for a cell it does not hold.
    int64_t add(int64_t key, int64_t delta) override {
        CellCache::Entry& cell = cached(encode_key(owned_group(key), key));
        const int64_t updated = cell.second.value.value_or(0) + delta;
        write(cell, updated);
        return updated;
    }

    std::optional<int64_t> get(const StateKey& at) const override {
        return lookup(encode_cell_key(owned_group(at.key), at));
    }
    void put(const StateKey& at, int64_t value) override {
        write(encode_cell_key(owned_group(at.key), at), value);
    }
    void remove(const StateKey& at) override {
        write(encode_cell_key(owned_group(at.key), at), std::nullopt);
    }

    // The key's cells of `state` lie under one prefix; for state 0 the plain cell (stored first,
    // under the shorter key) is handed over at its place in (ns, item) order.
    void scan(int64_t key, int32_t state,
              const std::function<void(const StateKey&, int64_t)>& visit) const override {
        const int32_t key_group = owned_group(key);
        // (A bool and a value rather than an optional: GCC 12 at -O3 warns of the optional's
        // value.)
        int64_t plain_value = 0;
        bool plain_pending = false;
        if (state == 0) {
            const std::optional<int64_t> plain = get(key);
            plain_pending = plain.has_value();
            plain_value = plain.value_or(0);
        }
        const StateKey plain_at{key, 0, 0, 0};
        const std::string prefix = encode_scan_prefix(key_group, key, state);
        std::unique_ptr<rocksdb::Iterator> it(iterator());
        for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
            const StateKey at = decode_cell_key(it->key()).second;
            if (plain_pending && plain_at < at) {
                visit(plain_at, plain_value);
                plain_pending = false;
            }
            visit(at, decode_value(it->value()));
        }
        check(it->status(), "iterate");
        if (plain_pending) visit(plain_at, plain_value);
    }

    // One pass in key order; a key's plain cell waits for its place among the key's state-0 cells.
    void scan_state(int32_t state,
                    const std::function<void(const StateKey&, int64_t)>& visit) const override {
        std::optional<std::pair<StateKey, int64_t>> plain;
        std::unique_ptr<rocksdb::Iterator> it(iterator());
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            if (state != 0 && it->key().size() == kPlainKeySize) continue;
            const StateKey at = decode_cell_key(it->key()).second;
            if (plain && (plain->first.key != at.key || plain->first < at)) {
                visit(plain->first, plain->second);
                plain.reset();
            }
            if (at.state != state) continue;
            if (is_plain_cell(at)) {
                plain.emplace(at, decode_value(it->value()));
                continue;
            }
            visit(at, decode_value(it->value()));
        }
        check(it->status(), "iterate");
        if (plain) visit(plain->first, plain->second);
    }

    std::map<StateKey, int64_t> cells() const override {
        std::map<StateKey, int64_t> all;
        std::unique_ptr<rocksdb::Iterator> it(iterator());
        for (it->SeekToFirst(); it->Valid(); it->Next())
            all.emplace(decode_cell_key(it->key()).second, decode_value(it->value()));
        check(it->status(), "iterate");
        return all;
    }

    // A full snapshot is the canonical form (as Flink's full RocksDB snapshots are
    // backend-neutral).
    std::string snapshot() const override { return canonical_snapshot(); }

    void restore(const std::vector<std::string>& snapshots) override {
        for (const std::string& blob : snapshots) {
            if (is_incremental_state(blob))
                throw std::runtime_error("incremental RocksDB state handed to a full restore");
        }
        restore_canonical(snapshots);
    }

    std::string canonical_snapshot() const override {
        BlobWriter out;
        std::unique_ptr<rocksdb::Iterator> it(iterator());
        int32_t group = -1;
        std::vector<std::pair<int64_t, int64_t>> plain;
        std::vector<std::pair<StateKey, int64_t>>
            namespaced;  // in StateKey order: the key order within a key group
        auto emit = [&] {
            write_canonical_key_group(out, group, plain, namespaced);
            plain.clear();
            namespaced.clear();
        };
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            const auto [key_group, at] = decode_cell_key(it->key());
            if (key_group != group) emit();
            group = key_group;
            if (it->key().size() == kPlainKeySize) {
                plain.emplace_back(at.key, decode_value(it->value()));
            } else {
                namespaced.emplace_back(at, decode_value(it->value()));
            }
        }
        check(it->status(), "iterate");
        emit();
        return out.take();
    }

    void restore_canonical(const std::vector<std::string>& snapshots) override {
        open_fresh();
        rocksdb::WriteBatch batch;
        for (const std::string& blob : snapshots) {
            read_canonical_state(
                blob, [this, &batch](int32_t key_group, const StateKey& at, int64_t value) {
                    if (!range_.contains(key_group)) return;
                    std::string encoded = encode_cell_key(key_group, at);
                    check(batch.Put(state(), encoded, encode_value(value)), "batch");
                    cache_.remember(std::move(encoded), value);
                });
        }
        check(db().Write(write_options(), &batch), "restore write");
        flush();
        count_restored_file_as_deeper();
    }

    // While the cell cache is complete it holds every cell RocksDB does (and the writes since): the
    // plain cells come from it, else from an iteration of RocksDB.
    std::map<int64_t, int64_t> contents() const override {
        std::map<int64_t, int64_t> all;
        if (cache_.complete()) {
            cache_.for_each([&all](const std::string& encoded, int64_t value) {
                if (encoded.size() == kPlainKeySize)
                    all.emplace(decode_cell_key(encoded).second.key, value);
            });
            return all;
        }
        std::unique_ptr<rocksdb::Iterator> it(iterator());
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
            if (it->key().size() == kPlainKeySize)
                all[decode_cell_key(it->key()).second.key] = decode_value(it->value());
        }
        check(it->status(), "iterate");
        return all;
    }

    bool incremental() const override { return incremental_; }

    IncrementalSnapshot snapshot_incremental(int64_t checkpoint_id,
                                             const std::string& shared_key_prefix) override {
        flush();
        std::vector<rocksdb::LiveFileMetaData> live = compact_if_due();
        std::sort(live.begin(), live.end(),
                  [](const auto& a, const auto& b) { return a.name < b.name; });
        IncrementalSnapshot snapshot;
        IncrementalManifest manifest{range_, {}};
        std::map<std::string, std::string> files;  // name -> key
        for (const rocksdb::LiveFileMetaData& meta : live) {
            const std::string name = file_name(meta);
            SnapshotFile file{name,
                              "",
                              static_cast<int64_t>(meta.size),
                              level_of(meta),
                              entries_of(meta),
                              static_cast<int64_t>(meta.smallest_seqno),
                              static_cast<int64_t>(meta.largest_seqno)};
            if (auto known = confirmed_.find(name); known != confirmed_.end()) {
                file.key = known->second;
            } else {
                file.key = shared_key_prefix + name;
                std::string bytes;
                check(rocksdb::ReadFileToString(disk_->env(), db_->dir() + "/" + name, &bytes),
                      "read SST");
                normalise_session_id(&bytes);
                snapshot.uploads.push_back(SharedStateUpload{file.key, std::move(bytes)});
            }
            files[name] = file.key;
            snapshot.bytes_referenced += file.bytes;
            snapshot.shared_keys.push_back(file.key);
            manifest.files.push_back(std::move(file));
        }
        std::sort(snapshot.shared_keys.begin(), snapshot.shared_keys.end());
        pending_[checkpoint_id] = std::move(files);
        snapshot.private_state = encode_manifest(manifest);
        return snapshot;
    }

    void checkpoint_confirmed(int64_t checkpoint_id) override {
        auto it = pending_.find(checkpoint_id);
        if (it == pending_.end()) return;
        // Only the newest confirmed snapshot's files are referred to (as Flink's RocksDB backend).
        confirmed_ = std::move(it->second);
        pending_.erase(pending_.begin(), std::next(it));
    }

    void checkpoint_aborted(int64_t checkpoint_id) override {
        pending_.erase(checkpoint_id);
        confirmed_.clear();
    }

    void disown_restored_files() override { confirmed_.clear(); }

    void restore_incremental(const std::vector<std::string>& private_states,
                             const std::map<std::string, std::string>& shared) override {
        std::vector<IncrementalManifest> sources;
        for (const std::string& blob : private_states) {
            IncrementalManifest manifest = decode_manifest(blob);
            if (overlaps(manifest.range, range_)) sources.push_back(std::move(manifest));
        }
        pending_.clear();
        confirmed_.clear();
        restored_files_.clear();
        drop_cache();
        if (sources.size() == 1 && sources.front().range.first == range_.first &&
            sources.front().range.last == range_.last) {
            // The same key groups: the downloaded files themselves become the new instance's state,
            // at their recorded levels, and the backend goes on referring to them (the next
            // incremental snapshot uploads only new files).
            const IncrementalManifest& source = sources.front();
            const std::string download = next_dir();
            db_.reset();
            db_ = std::make_unique<Instance>(*disk_, next_dir(),
                                             import_metadata(download, source, shared));
            name_imported_files(source);
            std::unique_ptr<rocksdb::Iterator> it(db().NewIterator(read_options(), state()));
            for (it->SeekToFirst(); it->Valid() && cache_.complete(); it->Next())
                cache_.remember(it->key().ToString(), decode_value(it->value()));
            check(it->status(), "iterate restored instance");
            return;
        }
        // Rescaled: each overlapping old subtask's files imported into a temporary column family of
        // a fresh instance, its owned key groups copied into the state, the temporary column family
        // dropped (Flink's restore via temporary instances). Without the clip (a negative control)
        // every key of the temporary one is copied.
        open_fresh();
        for (const IncrementalManifest& source : sources) {
            const std::string download = next_dir();
            rocksdb::ColumnFamilyHandle* temporary =
                db_->import(download.substr(1), import_metadata(download, source, shared));
            std::unique_ptr<rocksdb::Iterator> it(db().NewIterator(read_options(), temporary));
            const std::string from = encode_key(
                clip_on_rescale_ ? std::max(range_.first, source.range.first) : 0, INT64_MIN);
            rocksdb::WriteBatch batch;
            for (it->Seek(from); it->Valid(); it->Next()) {
                if (clip_on_rescale_ && key_group_of_encoded(it->key()) > range_.last) break;
                check(batch.Put(state(), it->key(), it->value()), "batch");
                cache_.remember(it->key().ToString(), decode_value(it->value()));
            }
            check(it->status(), "iterate temporary column family");
            it.reset();
            db_->drop(temporary);
            check(db().Write(write_options(), &batch), "restore write");
        }
        flush();
        count_restored_file_as_deeper();
    }

private:
    static uint64_t digest_of(const std::string& text) {
        uint64_t h = 0x726f636b7364622dULL;
        for (char c : text) h = sim::digest_mix(h, static_cast<uint8_t>(c));
        return h;
    }

    int32_t owned_group(int64_t key) const {
        const int32_t key_group = key_group_of(key, max_parallelism_);
        if (!range_.contains(key_group))
            throw std::logic_error("key routed to a subtask that does not own its key group");
        return key_group;
    }

    static std::string file_name(const rocksdb::LiveFileMetaData& meta) {
        return meta.name.substr(meta.name.find_first_not_of('/'));
    }

    // A file's level for the compaction trigger: its own, but for the one file a rescaled or
    // canonical restore wrote, which is on level 0 and counts as a deeper sorted run (else the
    // first checkpoint after such a restore with a few small new files would compact, rewrite and
    // upload the whole state).
    int64_t level_of(const rocksdb::LiveFileMetaData& meta) const {
        if (meta.level > 0) return meta.level;
        auto restored = restored_files_.find(file_name(meta));
        return restored == restored_files_.end() ? 0 : restored->second.level;
    }

    // A file's entries, as the snapshot that uploaded it counted them for a restored one (RocksDB
    // counts them at open only for some files: skip_stats_update_on_db_open).
    int64_t entries_of(const rocksdb::LiveFileMetaData& meta) const {
        auto restored = restored_files_.find(file_name(meta));
        return restored == restored_files_.end() ? static_cast<int64_t>(meta.num_entries)
                                                 : restored->second.entries;
    }

    // The whole state was just written and flushed into one file (a rescaled or canonical
    // restore): one sorted run, as a full compaction leaves it, so it counts as a deeper level.
    void count_restored_file_as_deeper() {
        for (const rocksdb::LiveFileMetaData& meta : instance().live_files()) {
            restored_files_[file_name(meta)] = RestoredFile{std::max<int64_t>(meta.level, 1),
                                                            static_cast<int64_t>(meta.num_entries)};
        }
    }
    // The live files, after compacting everything into one sorted run when level 0 holds
    // kLevel0FilesPerCompaction files and at least as many entries as the levels below, or
    // kLevel0FilesLimit files. (Entries, not bytes: a small file's bytes are mostly its index,
    // filter and properties, so with a small state a byte count compacted every few checkpoints.)
    std::vector<rocksdb::LiveFileMetaData> compact_if_due() {
        std::vector<rocksdb::LiveFileMetaData> live = instance().live_files();
        int64_t level0_files = 0, level0_entries = 0, deeper_entries = 0;
        for (const rocksdb::LiveFileMetaData& file : live) {
            if (level_of(file) == 0) {
                ++level0_files;
                level0_entries += entries_of(file);
            } else {
                deeper_entries += entries_of(file);
            }
        }
        if (level0_files < kLevel0FilesLimit &&
            (level0_files < kLevel0FilesPerCompaction || level0_entries < deeper_entries))
            return live;
        // Every file (level 0 and level 1) into level 1: one sorted run, deletions dropped (nothing
        // lies deeper). CompactFiles compacts on the calling thread: no hand-off to RocksDB's
        // background thread and back (CompactRange schedules the job there and waits for it).
        std::vector<std::string> inputs;
        inputs.reserve(live.size());
        for (const rocksdb::LiveFileMetaData& file : live) inputs.push_back(file.name);
        rocksdb::CompactionOptions compact;
        // As a CompactRange into level 1 would write them (CompactionOptions' own default is
        // Snappy).
        compact.compression = disk_->options().compression;
        compact.output_file_size_limit = disk_->options().target_file_size_base;
        check(db().CompactFiles(compact, state(), inputs, 1), "compact");
        restored_files_.clear();
        return db_->live_files();
    }

    std::string next_dir() { return "/db-" + std::to_string(++instances_); }

    // The open instance; a backend that is restored before any access never opens its first one.
    Instance& instance() const {
        if (!db_) db_ = std::make_unique<Instance>(*disk_, "/db-" + std::to_string(instances_));
        return *db_;
    }
    rocksdb::DB& db() const { return instance().db(); }
    // The column family the cells live in.
    rocksdb::ColumnFamilyHandle* state() const { return instance().state(); }

    void open_fresh() {
        drop_cache();
        restored_files_.clear();
        db_.reset();
        db_ = std::make_unique<Instance>(*disk_, next_dir());
    }

    std::optional<int64_t> read_db(const std::string& encoded) const {
        std::string value;
        const rocksdb::Status status = db().Get(read_options(), state(), encoded, &value);
        if (status.IsNotFound()) return std::nullopt;
        check(status, "get");
        return decode_value(value);
    }

    // The cell under RocksDB key `encoded`, read from RocksDB if the cache does not hold it (and
    // does not know it to be absent).
    CellCache::Entry& cached(std::string encoded) const {
        if (CellCache::Entry* known = cache_.find(encoded)) return *known;
        if (cache_.full()) {
            write_dirty();
            cache_.overflowed();
        }
        const std::optional<int64_t> value = cache_.complete() ? std::nullopt : read_db(encoded);
        return cache_.insert(std::move(encoded), value);
    }

    std::optional<int64_t> lookup(std::string encoded) const {
        return cached(std::move(encoded)).second.value;
    }

    void write(std::string encoded, std::optional<int64_t> value) {
        write(cached(std::move(encoded)), value);
    }

    void write(CellCache::Entry& cell, std::optional<int64_t> value) {
        cache_.write(cell, value);
        if (++writes_since_flush_ >= kWritesPerFlush) flush();
    }

    // The dirty cells into RocksDB's memtable as one batch in key order (a sorted insert into the
    // memtable's skip list costs a few comparisons instead of a descent from its top).
    void write_dirty() const {
        const std::vector<CellCache::Entry*> dirty = cache_.take_dirty();
        if (dirty.empty()) return;
        rocksdb::WriteBatch batch;
        for (const CellCache::Entry* cell : dirty) {
            const std::optional<int64_t>& value = cell->second.value;
            check(value ? batch.Put(state(), cell->first, encode_value(*value))
                        : batch.Delete(state(), cell->first),
                  "batch");
        }
        check(db().Write(write_options(), &batch), "write");
    }

    // Forget every cell (the instance is replaced).
    void drop_cache() {
        cache_.reset();
        writes_since_flush_ = 0;
    }

    // An iterator over everything written, the dirty cells included.
    rocksdb::Iterator* iterator() const {
        write_dirty();
        return db().NewIterator(read_options(), state());
    }

    void flush() {
        write_dirty();
        instance().flush();
        writes_since_flush_ = 0;
    }

    // The manifest's files written into directory `dir` (as downloaded), described for an import.
    std::vector<rocksdb::LiveFileMetaData> import_metadata(
        const std::string& dir, const IncrementalManifest& manifest,
        const std::map<std::string, std::string>& shared) {
        check(disk_->env()->CreateDirIfMissing(dir), "create directory");
        std::vector<rocksdb::LiveFileMetaData> files;
        for (const SnapshotFile& file : manifest.files) {
            auto bytes = shared.find(file.key);
            if (bytes == shared.end())
                throw std::runtime_error("shared state file missing for restore: " + file.key);
            check(rocksdb::WriteStringToFile(disk_->env(), bytes->second, dir + "/" + file.name,
                                             false),
                  "write SST");
            rocksdb::LiveFileMetaData meta;
            meta.db_path = dir;
            meta.name = file.name;
            meta.size = static_cast<size_t>(file.bytes);
            meta.level = static_cast<int>(file.level);
            meta.smallest_seqno = static_cast<rocksdb::SequenceNumber>(file.smallest_seqno);
            meta.largest_seqno = static_cast<rocksdb::SequenceNumber>(file.largest_seqno);
            files.push_back(std::move(meta));
        }
        return files;
    }

    // The import gave the manifest's files new numbers, in the manifest's order: each file's new
    // name refers to its uploaded key, with its recorded level and entries.
    void name_imported_files(const IncrementalManifest& manifest) {
        std::vector<rocksdb::LiveFileMetaData> live = db_->live_files();
        std::sort(live.begin(), live.end(),
                  [](const auto& a, const auto& b) { return a.file_number < b.file_number; });
        if (live.size() != manifest.files.size())
            throw std::logic_error("rocksdb state backend: imported files missing");
        for (size_t i = 0; i < live.size(); ++i) {
            const SnapshotFile& file = manifest.files[i];
            if (live[i].size != static_cast<size_t>(file.bytes) ||
                live[i].largest_seqno != static_cast<rocksdb::SequenceNumber>(file.largest_seqno)) {
                throw std::logic_error("rocksdb state backend: imported file " + file.name +
                                       " not where expected");
            }
            const std::string name = file_name(live[i]);
            confirmed_[name] = file.key;
            restored_files_[name] = RestoredFile{file.level, file.entries};
        }
    }

    // RocksDB writes a random, process-wide session id into every SST file's properties (the only
    // bytes of the file that differ between runs with a frozen clock, fixed db id and host id).
    // The uploaded copy carries a session id derived from the backend's identity instead: the same
    // length, valid base 36, and no checksum covers it (kNoChecksum).
    void normalise_session_id(std::string* bytes) const {
        std::string session;
        check(db().GetDbSessionId(session), "session id");
        if (session.empty()) return;
        std::string replacement(session.size(), '0');
        uint64_t h = sim::digest_mix(identity_digest_, static_cast<uint64_t>(instances_));
        for (size_t i = 0; i < replacement.size(); ++i) {
            if (i % 10 == 0) h = sim::digest_mix(h, i);
            replacement[i] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[h % 36];
            h /= 36;
        }
        for (size_t at = bytes->find(session); at != std::string::npos;
             at = bytes->find(session, at + session.size())) {
            bytes->replace(at, session.size(), replacement);
        }
    }

    KeyGroupRange range_;
    int32_t max_parallelism_;
    bool incremental_;
    bool clip_on_rescale_;
    uint64_t identity_digest_;
    std::unique_ptr<rocksdb_state::LocalDisk> disk_ = std::make_unique<rocksdb_state::LocalDisk>();
    mutable std::unique_ptr<Instance>
        db_;                 // opened by instance(); declared after the disk it lives on
    int64_t instances_ = 1;  // the instance the first access opens is /db-1
    int64_t writes_since_flush_ = 0;
    // Lookups and writes go to the cell cache first (as Kafka Streams' record cache sits before
    // RocksDB); flushes, iterations and snapshots hand its dirty cells to RocksDB first.
    mutable CellCache cache_{rocksdb_state::kCellCacheCapacity};
    std::map<int64_t, std::map<std::string, std::string>>
        pending_;                                   // checkpoint -> its files (name -> key)
    std::map<std::string, std::string> confirmed_;  // name -> key, of the newest confirmed snapshot
    struct RestoredFile {
        int64_t level = 0;
        int64_t entries = 0;
    };
    std::map<std::string, RestoredFile>
        restored_files_;  // name -> as its snapshot recorded it, for files a restore wrote
};

}  // namespace

bool is_incremental_state(const std::string& blob) {
    if (blob.size() < 8 + kIncrementalMagic.size()) return false;
    BlobReader in(std::string_view(blob).substr(0, 8));
    return in.get_i64() == static_cast<int64_t>(kIncrementalMagic.size()) &&
           std::string_view(blob).substr(8, kIncrementalMagic.size()) == kIncrementalMagic;
}

std::vector<std::string> shared_keys_to_restore(const std::vector<std::string>& private_states,
                                                KeyGroupRange range) {
    std::vector<std::string> keys;
    for (const std::string& blob : private_states) {
        const IncrementalManifest manifest = decode_manifest(blob);
        if (!overlaps(manifest.range, range)) continue;
        for (const SnapshotFile& file : manifest.files) keys.push_back(file.key);
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

std::unique_ptr<KeyedStateBackend> make_state_backend(const StateBackendOptions& options,
                                                      KeyGroupRange range, int32_t max_parallelism,
                                                      const std::string& identity) {
    if (options.kind == StateBackendKind::heap)
        return make_heap_state_backend(range, max_parallelism);
    return std::make_unique<RocksDbStateBackend>(range, max_parallelism, options, identity);
}

}  // namespace eosim::engine
