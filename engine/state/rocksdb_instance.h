// One open RocksDB instance on a keyed subtask's local disk, and that disk: how the RocksDB state
// backend (rocksdb_state_backend.cpp) configures and opens RocksDB so that it stays deterministic
// and cheap. What the backend stores in it, and how it snapshots and restores, is the backend's
// business; engine/state/README.md has both.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

namespace eosim::engine::rocksdb_state {

// The subtask's local disk: an in-memory file system (dropped with it, as a crash drops the
// TaskManager's working directory) with a frozen clock and a fixed unique id, plus what every
// instance on it shares (the options, among them the block cache).
class LocalDisk {
public:
    LocalDisk();
    ~LocalDisk();
    LocalDisk(const LocalDisk&) = delete;
    LocalDisk& operator=(const LocalDisk&) = delete;

    rocksdb::Env* env() { return env_.get(); }
    const rocksdb::Options& options() const { return options_; }
    // Runs the background work RocksDB scheduled (a flush) on the calling thread.
    void run_background_work();

private:
    std::unique_ptr<rocksdb::Env> env_;
    rocksdb::Options options_;
};

// Throws std::runtime_error naming `what` unless `status` is OK.
void check(const rocksdb::Status& status, const char* what);

// Options of every read and write: no WAL (the whole local disk goes with a crash anyway), no
// checksums to verify (the files have none), no range deletions to look for (none is written).
const rocksdb::ReadOptions& read_options();
const rocksdb::WriteOptions& write_options();

// An open instance in a directory of a local disk; closed and its files deleted when it goes. The
// backend's cells live in one column family, `state()` (not RocksDB's default one, since RocksDB
// imports SST files only into a new column family).
class Instance {
public:
    // A fresh instance with an empty state column family.
    Instance(LocalDisk& disk, std::string dir);
    // An instance whose state column family is made of SST files of an earlier instance (downloaded
    // from checkpoint storage into another directory, moved here): at the levels and with the
    // sequence numbers their snapshot recorded, each file opened once to find its smallest and
    // largest key (RocksDB's CreateColumnFamilyWithImport; no MANIFEST needed).
    Instance(LocalDisk& disk, std::string dir, const std::vector<rocksdb::LiveFileMetaData>& files);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    rocksdb::DB& db() { return *db_; }
    const std::string& dir() const { return dir_; }
    rocksdb::ColumnFamilyHandle* state() { return state_; }
    // Another instance's SST files imported into a new column family `name` of this one, to read
    // them; drop() removes it (and its files) again.
    rocksdb::ColumnFamilyHandle* import(const std::string& name,
                                        const std::vector<rocksdb::LiveFileMetaData>& files);
    void drop(rocksdb::ColumnFamilyHandle* family);
    // The state column family's live SST files.
    std::vector<rocksdb::LiveFileMetaData> live_files();
    // Flush the state's memtable into a level-0 SST file (RocksDB's flush job, on the calling
    // thread).
    void flush();

private:
    LocalDisk& disk_;
    std::string dir_;
    std::unique_ptr<rocksdb::DB> db_;
    rocksdb::ColumnFamilyHandle* state_ = nullptr;
};

}  // namespace eosim::engine::rocksdb_state
