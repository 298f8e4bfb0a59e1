#include "oracles/storage_oracle.h"

#include <cstdio>
#include <vector>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
constexpr sim::EventKind kStoragePoll{"oracle.storage_poll"};
}

const CheckpointReferences::Referenced& CheckpointReferences::of(const std::string& metadata_key,
                                                                 const std::string& text) {
    auto known = parsed_.find(metadata_key);
    if (known != parsed_.end() && known->second.text == text) {
        known->second.used = true;
        return known->second.referenced;
    }
    const engine::CompletedCheckpoint checkpoint = engine::parse_checkpoint_metadata(text);
    Parsed& entry = parsed_[metadata_key];
    entry.used = true;
    entry.text = text;
    entry.referenced.id = checkpoint.id;
    entry.referenced.keys.clear();
    for (const auto& [where, handle] : checkpoint.handles) entry.referenced.keys.push_back(handle);
    for (const auto& [where, files] : checkpoint.shared)
        entry.referenced.keys.insert(entry.referenced.keys.end(), files.begin(), files.end());
    return entry.referenced;
}

void CheckpointReferences::forget_unused() {
    std::erase_if(parsed_, [](const auto& entry) { return !entry.second.used; });
    for (auto& [key, entry] : parsed_) entry.used = false;
}

std::optional<std::string> find_lost_checkpoint_file(
    const engine::JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed,
    CheckpointReferences& references) {
    const std::string prefix = engine::checkpoint_prefix(job);
    std::map<int64_t, const std::string*> by_id;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix);
         ++it) {
        if (it->first.ends_with("/_metadata") && !being_removed(it->first))
            by_id[engine::checkpoint_id_of(it->first)] = &it->first;
    }
    std::optional<std::string> problem;
    int32_t left = job.checkpointing.retained;
    for (auto it = by_id.rbegin(); it != by_id.rend() && left > 0 && !problem; ++it, --left) {
        const CheckpointReferences::Referenced& checkpoint =
            references.of(*it->second, blobs.at(*it->second));
        for (const std::string& key : checkpoint.keys) {
            if (blobs.contains(key)) continue;
            problem = "checkpoint " + std::to_string(checkpoint.id) + " refers to " + key +
                      ", which is not in storage";
            break;
        }
    }
    references.forget_unused();
    return problem;
}

std::optional<std::string> find_lost_checkpoint_file(
    const engine::JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed) {
    CheckpointReferences references;
    return find_lost_checkpoint_file(job, blobs, being_removed, references);
}

std::optional<std::string> SavepointWatch::check(const std::map<std::string, std::string>& blobs) {
    for (auto& [metadata, files] : files_) {
        const std::string savepoint =
            metadata.substr(0, metadata.size() - std::string("/_metadata").size());
        auto stored = blobs.find(metadata);
        if (stored == blobs.end())
            return "savepoint " + savepoint + " is gone from storage (its _metadata was deleted)";
        if (!files) {
            files.emplace();
            for (const engine::SavepointOperator& op :
                 engine::parse_savepoint_metadata(stored->second).operators) {
                for (const auto& [subtask, key] : op.subtask_state) files->push_back(key);
            }
        }
        for (const std::string& key : *files) {
            if (!blobs.contains(key))
                return "savepoint " + savepoint + " refers to " + key + ", which is not in storage";
        }
    }
    return std::nullopt;
}

StorageOracle::StorageOracle(sim::Scheduler& scheduler, const sim::DurableStorage& storage,
                             const engine::JobSpec& job, sim::Duration poll_interval)
    : scheduler_(scheduler), storage_(storage), job_(job), poll_interval_(poll_interval) {}

void StorageOracle::start() {
    scheduler_.schedule(poll_interval_, sim::kNoNode, kStoragePoll, 0, [this] { poll(); });
}

std::optional<std::string> StorageOracle::check() const {
    if (auto lost = find_lost_checkpoint_file(
            job_, storage_.contents(),
            [this](const std::string& key) { return storage_.removal_in_flight(key); },
            references_)) {
        return lost;
    }
    return savepoints_.check(storage_.contents());
}

void StorageOracle::poll() {
    ++polls_;
    if (!first_violation_) {
        if (auto problem = check()) {
            char at[40];
            std::snprintf(at, sizeof at, " (at %.3fs)", scheduler_.now().seconds());
            first_violation_ = *problem + at;
        }
    }
    scheduler_.schedule(poll_interval_, sim::kNoNode, kStoragePoll, static_cast<uint64_t>(polls_),
                        [this] { poll(); });
}

Verdict StorageOracle::verdict() const {
    const engine::CheckpointStorageUse use = engine::checkpoint_storage_use(
        job_, storage_.contents(),
        [this](const std::string& key) { return storage_.removal_in_flight(key); });
    const std::string figures = "; at the end " + std::to_string(use.retained.files) + " files (" +
                                std::to_string(use.retained.bytes) + " bytes) retained, " +
                                std::to_string(use.unretained.files) + " orphans (" +
                                std::to_string(use.unretained.bytes) + " bytes); " +
                                std::to_string(polls_) + " polls";
    if (first_violation_) return Verdict{false, *first_violation_ + figures};
    if (auto problem = check()) return Verdict{false, *problem + " (at the end)" + figures};
    return Verdict{true, "every file the retained checkpoints and the " +
                             std::to_string(savepoints_.seen()) +
                             " savepoints refer to is in storage" + figures};
}

OracleRegistration storage_registration() {
    return {
        "storage",
        "no file a retained checkpoint or savepoint needs is ever missing from checkpoint storage",
        [](const OracleJobFacts&) { return std::string(); },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto oracle = std::make_unique<StorageOracle>(run.world.scheduler(),
                                                          run.world.storage(), run.job);
            StorageOracle* storage = oracle.get();
            run.hooks.on_start([storage] { storage->start(); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
