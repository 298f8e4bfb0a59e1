#pragma once
// Storage: no checkpoint loses a file it refers to. Throughout the run (every `poll_interval` of
// virtual time, so soon after every discard lands) and at its end, every file the retained
// checkpoints refer to exists in checkpoint storage: their task state handles and the shared files
// of incremental state (engine/checkpointing/shared_state_registry.h). The retained checkpoints
// are those a recovering JobManager keeps: the newest `retained` whose _metadata is stored and not
// being deleted.
//
// Savepoints: every savepoint of every job of the run (every deployment's, every verification
// job's) stays, whatever retention did, since a later deployment may name any of them ("from":
// "savepoint after v1", a named one, a rollback to an older one): once a savepoint completed, its
// _metadata and every file it refers to must stay in storage to the end of the run. (A savepoint
// that failed is not the user's: its files go.)
//
// Also reports, as figures, the orphans at the end: checkpoint files nothing retained refers to
// (uploads of aborted or late snapshots whose cleanup was lost, shared files of a JobManager that
// crashed before deleting them), with their bytes.
//
// Does not check: a file's bytes (only that it exists), files lost and written again between two
// polls, retained checkpoints of later
// deployments' jobs (the first job's only), or whether what is retained restores (the
// state-after-restore oracle does).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/job_spec.h"
#include "oracles/oracle.h"
#include "sim/scheduler.h"
#include "sim/storage.h"

namespace eosim::oracles {

// The savepoints completed so far, each with the files its _metadata names.
class SavepointWatch {
public:
    // Savepoint `path` (its _metadata) completed.
    void completed(const std::string& path) { files_.try_emplace(path); }
    // The first completed savepoint whose _metadata or a file it names `blobs` lacks, if any (a
    // savepoint's files are read from its _metadata the first time it is checked).
    std::optional<std::string> check(const std::map<std::string, std::string>& blobs);
    size_t seen() const { return files_.size(); }

private:
    std::map<std::string, std::optional<std::vector<std::string>>>
        files_;  // _metadata key -> the state files it names
};

// The files each checkpoint's _metadata refers to (its task state handles, then its shared files),
// parsed once per distinct _metadata text: the oracle polls the same few retained checkpoints every
// 100 ms, and an incremental checkpoint's metadata names every shared file, so parsing it at every
// poll cost a RocksDB run more than its state backend's lookups.
class CheckpointReferences {
public:
    struct Referenced {
        int64_t id = 0;
        std::vector<std::string> keys;
    };
    // What the _metadata stored under `metadata_key` with contents `text` refers to.
    const Referenced& of(const std::string& metadata_key, const std::string& text);
    // Forgets every _metadata not asked for since the last call (those no longer retained).
    void forget_unused();

private:
    struct Parsed {
        std::string
            text;  // the _metadata parsed: a key written again with other bytes is parsed again
        Referenced referenced;
        bool used = false;
    };
    std::map<std::string, Parsed> parsed_;
};

// The first file a retained checkpoint refers to that `blobs` lacks ("chk-7 refers to <key>"), if
// any. `references` keeps the parsed _metadata between calls.
std::optional<std::string> find_lost_checkpoint_file(
    const engine::JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed, CheckpointReferences& references);
std::optional<std::string> find_lost_checkpoint_file(
    const engine::JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed);

class StorageOracle final : public Oracle {
public:
    StorageOracle(sim::Scheduler& scheduler, const sim::DurableStorage& storage,
                  const engine::JobSpec& job,
                  sim::Duration poll_interval = sim::Duration::millis(100));
    const char* name() const override { return "storage"; }
    Verdict verdict() const override;
    void savepoint_completed(sim::Time, const std::string& path) override {
        savepoints_.completed(path);
    }
    void start();

private:
    void poll();
    std::optional<std::string> check() const;

    sim::Scheduler& scheduler_;
    const sim::DurableStorage& storage_;
    const engine::JobSpec& job_;
    sim::Duration poll_interval_;
    int64_t polls_ = 0;
    std::optional<std::string> first_violation_;
    mutable SavepointWatch savepoints_;
    mutable CheckpointReferences references_;
};

}  // namespace eosim::oracles
