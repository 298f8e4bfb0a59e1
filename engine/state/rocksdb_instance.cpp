#include "engine/state/rocksdb_instance.h"

#include <deque>
#include <stdexcept>

#include <rocksdb/cache.h>
#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/system_clock.h>
#include <rocksdb/table.h>

namespace eosim::engine::rocksdb_state {

namespace {

// Time stands still for RocksDB: creation times in SST properties and the MANIFEST are zero. So
// does the thread's CPU clock, which RocksDB reads around every flush and compaction for its
// statistics (nobody reads them here): a system call each time (CLOCK_THREAD_CPUTIME_ID has no
// vDSO path), over a hundred in a run.
class FrozenClock final : public rocksdb::SystemClockWrapper {
public:
    using rocksdb::SystemClockWrapper::SystemClockWrapper;
    const char* Name() const override { return "EosimFrozenClock"; }
    uint64_t NowMicros() override { return 0; }
    uint64_t NowNanos() override { return 0; }
    uint64_t CPUMicros() override { return 0; }
    uint64_t CPUNanos() override { return 0; }
    rocksdb::Status GetCurrentTime(int64_t* unix_time) override {
        *unix_time = 0;
        return rocksdb::Status::OK();
    }
};

// In-memory files, the frozen clock and a fixed unique id (the DB's IDENTITY, which SST properties
// carry as db_id). It declines RocksDB's OPTIONS file (the options written out as text, then read
// back and parsed to verify them: 2.6 M instructions an open, most of an open's cost): nothing
// reads it, since an instance is never reopened from its directory, and with
// fail_if_options_file_error off (the default) RocksDB goes on without it.
class LocalDiskEnv final : public rocksdb::EnvWrapper {
public:
    explicit LocalDiskEnv(std::unique_ptr<rocksdb::Env> memory)
        : rocksdb::EnvWrapper(memory.get()), memory_(std::move(memory)) {
        system_clock_ = std::make_shared<FrozenClock>(memory_->GetSystemClock());
    }
    const char* Name() const override { return "EosimLocalDiskEnv"; }
    rocksdb::Status NewWritableFile(const std::string& name,
                                    std::unique_ptr<rocksdb::WritableFile>* result,
                                    const rocksdb::EnvOptions& options) override {
        if (name.find("/OPTIONS-") != std::string::npos)
            return rocksdb::Status::NotSupported("no OPTIONS file on this disk");
        return rocksdb::EnvWrapper::NewWritableFile(name, result, options);
    }
    std::string GenerateUniqueId() override { return "eosim-rocksdb-state-backend"; }
    // RocksDB's background work (a flush) is queued here and run on the calling thread by
    // run_scheduled(), right after the call that scheduled it: no background thread to hand the job
    // to and wake again, and the job runs at the same point of the simulation every time.
    void Schedule(void (*function)(void*), void* arg, Priority priority, void* tag,
                  void (*unschedule)(void*)) override {
        jobs_.push_back(Job{function, arg, priority, tag, unschedule});
    }
    int UnSchedule(void* tag, Priority priority) override {
        int removed = 0;
        std::erase_if(jobs_, [&](const Job& job) {
            if (job.tag != tag || job.priority != priority) return false;
            if (job.unschedule != nullptr) job.unschedule(job.arg);
            ++removed;
            return true;
        });
        return removed;
    }
    void IncBackgroundThreadsIfNeeded(int /*number*/, Priority /*priority*/) override {
    }  // no thread started for it
    void run_scheduled() {
        while (!jobs_.empty()) {
            const Job job = jobs_.front();
            jobs_.pop_front();
            job.function(job.arg);
        }
    }
    uint64_t NowMicros() override { return 0; }
    uint64_t NowNanos() override { return 0; }
    uint64_t NowCPUNanos() override { return 0; }
    rocksdb::Status GetCurrentTime(int64_t* unix_time) override {
        *unix_time = 0;
        return rocksdb::Status::OK();
    }
    // One thread: the id a flush job reports in its statistics, without a gettid() system call.
    uint64_t GetThreadID() const override { return 0; }

private:
    struct Job {
        void (*function)(void*);
        void* arg;
        Priority priority;
        void* tag;
        void (*unschedule)(void*);
    };
    std::unique_ptr<rocksdb::Env> memory_;
    std::deque<Job> jobs_;
};

// RocksDB's info log goes nowhere (it would hold thread ids and is never read).
class NoLogger final : public rocksdb::Logger {
public:
    NoLogger()
        : rocksdb::Logger(rocksdb::InfoLogLevel::FATAL_LEVEL) {
    }  // RocksDB formats no message for it
    using rocksdb::Logger::Logv;
    void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

// Everything here that reaches an SST file's bytes (the table format, no compression, no
// checksums) must stay as it is: the uploaded files are hashed into the trace. The rest decides
// only what a lookup or a write costs.
rocksdb::Options db_options(rocksdb::Env* env) {
    rocksdb::Options o;
    o.env = env;
    o.info_log = std::make_shared<NoLogger>();
    o.create_if_missing = true;
    o.create_missing_column_families = true;
    o.disable_auto_compactions = true;  // compactions only where a snapshot asks for them
    o.write_buffer_size =
        512 << 20;  // never full before the backend's flush trigger: no automatic flush
    o.max_background_jobs = 1;
    o.stats_dump_period_sec = 0;
    o.stats_persist_period_sec = 0;
    o.db_host_id = "eosim";
    o.compression = rocksdb::kNoCompression;
    // The uploaded files carry a deterministic session id in place of RocksDB's random one (see
    // the backend's normalise_session_id): no checksums over it, no check of unique ids derived
    // from it.
    o.verify_sst_unique_id_in_manifest = false;
    // One writer (the task's thread): no concurrent memtable inserts, no spinning for a write
    // group.
    o.allow_concurrent_memtable_write = false;
    o.enable_write_thread_adaptive_yield = false;
    // No Bloom filter over the memtable: it holds only the batch the backend's cell cache hands
    // over right before a flush or an iteration, and lookups of cells written since go to that
    // cache. Memtable memory in blocks of 64 KB rather than 1 MB (a memtable holds one flush
    // interval's cells).
    o.arena_block_size = 64 << 10;
    o.skip_stats_update_on_db_open = true;  // no table properties read at open for statistics
    o.skip_checking_sst_file_sizes_on_db_open =
        true;  // the files are the ones just written or downloaded
    // An open loads its table readers on the calling thread, not on up to 16 new ones.
    o.max_file_opening_threads = 1;
    o.table_cache_numshardbits = 0;  // one shard: one thread uses the table cache
    // No second check of the key order of every entry a flush or compaction writes (RocksDB's own
    // iterators produce them; the check costs a key comparison an entry).
    o.check_flush_compaction_key_order = false;
    // An instance is closed only to be deleted: no flush of its memtable on the way.
    o.avoid_flush_during_shutdown = true;
    rocksdb::BlockBasedTableOptions table;
    table.checksum = rocksdb::kNoChecksum;
    // A block cache of Flink's default size per subtask: a lookup finds the parsed block there
    // instead of copying it out of the in-memory file and parsing it again.
    table.block_cache = rocksdb::NewLRUCache(8 << 20);
    // A whole-key Bloom filter in every SST file (10 bits a key, Flink's
    // state.backend.rocksdb.bloom-filter.bits-per-key): a lookup skips the files that cannot hold
    // its key instead of searching each one's index and data block. Most lookups that reach RocksDB
    // (a subtask with more cells than the cell cache holds) are of keys a file does not hold (new
    // keys, and every level-0 file newer than the key's last write). Without it
    // bench_state_backends' million keys took twice as long on incremental RocksDB; the catalogue's
    // runs saved 2.5%.
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    return o;
}

}  // namespace

void check(const rocksdb::Status& status, const char* what) {
    if (!status.ok())
        throw std::runtime_error(std::string("rocksdb state backend: ") + what + ": " +
                                 status.ToString());
}

LocalDisk::LocalDisk()
    : env_(std::make_unique<LocalDiskEnv>(
          std::unique_ptr<rocksdb::Env>(rocksdb::NewMemEnv(rocksdb::Env::Default())))),
      options_(db_options(env_.get())) {
    // RocksDB's per-operation counters (thread-local, never read) off on the simulation's thread.
    rocksdb::SetPerfLevel(rocksdb::kDisable);
}

LocalDisk::~LocalDisk() = default;

void LocalDisk::run_background_work() { static_cast<LocalDiskEnv*>(env_.get())->run_scheduled(); }

const rocksdb::ReadOptions& read_options() {
    static const rocksdb::ReadOptions options = [] {
        rocksdb::ReadOptions o;
        o.verify_checksums = false;
        o.ignore_range_deletions = true;
        return o;
    }();
    return options;
}

const rocksdb::WriteOptions& write_options() {
    static const rocksdb::WriteOptions options = [] {
        rocksdb::WriteOptions o;
        o.disableWAL = true;
        return o;
    }();
    return options;
}

namespace {

constexpr const char* kStateFamily = "state";

rocksdb::DB* open_db(LocalDisk& disk, const std::string& dir,
                     const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                     std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
    rocksdb::DB* db = nullptr;
    check(rocksdb::DB::Open(rocksdb::DBOptions(disk.options()), dir, families, handles, &db),
          "open");
    disk.run_background_work();  // none expected at open; run here if RocksDB scheduled any
    return db;
}

}  // namespace

Instance::Instance(LocalDisk& disk, std::string dir) : disk_(disk), dir_(std::move(dir)) {
    const rocksdb::ColumnFamilyOptions family(disk_.options());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    db_.reset(open_db(disk_, dir_,
                      {{rocksdb::kDefaultColumnFamilyName, family}, {kStateFamily, family}},
                      &handles));
    delete handles[0];  // the default column family stays empty (DB keeps its own handle to it)
    state_ = handles[1];
}

Instance::Instance(LocalDisk& disk, std::string dir,
                   const std::vector<rocksdb::LiveFileMetaData>& files)
    : disk_(disk), dir_(std::move(dir)) {
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    db_.reset(open_db(
        disk_, dir_,
        {{rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(disk_.options())}},
        &handles));
    delete handles[0];
    state_ = import(kStateFamily, files);
}

Instance::~Instance() {
    rocksdb::CancelAllBackgroundWork(db_.get(), true);
    if (state_ != nullptr) db_->DestroyColumnFamilyHandle(state_).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    db_.reset();
    rocksdb::DestroyDB(dir_, disk_.options()).PermitUncheckedError();
}

rocksdb::ColumnFamilyHandle* Instance::import(const std::string& name,
                                              const std::vector<rocksdb::LiveFileMetaData>& files) {
    if (files.empty()) {  // RocksDB imports no empty set: an empty column family then
        rocksdb::ColumnFamilyHandle* family = nullptr;
        check(db_->CreateColumnFamily(rocksdb::ColumnFamilyOptions(disk_.options()), name, &family),
              "create column family");
        return family;
    }
    rocksdb::ExportImportFilesMetaData metadata;
    metadata.db_comparator_name = rocksdb::BytewiseComparator()->Name();
    metadata.files = files;
    rocksdb::ImportColumnFamilyOptions options;
    options.move_files = true;  // a link on the in-memory disk, the downloaded name removed
    rocksdb::ColumnFamilyHandle* family = nullptr;
    check(db_->CreateColumnFamilyWithImport(rocksdb::ColumnFamilyOptions(disk_.options()), name,
                                            options, metadata, &family),
          "import checkpoint files");
    return family;
}

void Instance::drop(rocksdb::ColumnFamilyHandle* family) {
    check(db_->DropColumnFamily(family), "drop column family");
    check(db_->DestroyColumnFamilyHandle(family), "drop column family");
}

std::vector<rocksdb::LiveFileMetaData> Instance::live_files() {
    std::vector<rocksdb::LiveFileMetaData> live;
    db_->GetLiveFilesMetaData(&live);
    std::erase_if(live, [](const rocksdb::LiveFileMetaData& file) {
        return file.column_family_name != kStateFamily;
    });
    return live;
}

void Instance::flush() {
    // Scheduled, then run here (LocalDiskEnv): RocksDB's flush job on the calling thread. No wait
    // for writes to stall (nothing else writes), nor for a background thread.
    rocksdb::FlushOptions options;
    options.wait = false;
    options.allow_write_stall = true;
    check(db_->Flush(options, state_), "flush");
    disk_.run_background_work();
    uint64_t errors = 0;
    if (!db_->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &errors) || errors != 0) {
        throw std::runtime_error("rocksdb state backend: flush failed");
    }
}

}  // namespace eosim::engine::rocksdb_state
