#include "engine/checkpointing/checkpoint_storage.h"

#include <cstdio>
#include <algorithm>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

namespace eosim::engine {

std::string checkpoint_prefix(const JobSpec& job) { return "checkpoints/" + job.name + "/"; }

namespace {
std::string checkpoint_dir(const JobSpec& job, int64_t checkpoint_id) {
    return checkpoint_prefix(job) + "chk-" + std::to_string(checkpoint_id) + "/";
}
}  // namespace

std::string state_key(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task) {
    return checkpoint_dir(job, checkpoint_id) + job.vertices[static_cast<size_t>(task.vertex)].id + "-" +
           std::to_string(task.subtask) + "-a" + std::to_string(task.attempt);
}

namespace {
constexpr std::string_view kCounterDir = "/checkpoint-id-counter/";

std::string metadata_key_of(const std::vector<std::string>& files) {
    for (const std::string& key : files) {
        if (key.ends_with("/_metadata")) return key;
    }
    return "";
}
}  // namespace

std::string checkpoint_id_counter_key(const JobSpec& job, int64_t checkpoint_id) {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(checkpoint_id));
    std::string key = checkpoint_prefix(job);
    key.pop_back();  // the prefix ends with '/'
    key.append(kCounterDir);
    key.append(digits);
    return key;
}

int64_t checkpoint_id_counter_value(const std::string& key) {
    const size_t at = key.find(kCounterDir);
    if (at == std::string::npos) return 0;
    int64_t id = 0;
    for (size_t i = at + kCounterDir.size(); i < key.size() && key[i] >= '0' && key[i] <= '9'; ++i) {
        id = id * 10 + (key[i] - '0');
    }
    return id;
}

std::string metadata_key(const JobSpec& job, int64_t checkpoint_id) { return checkpoint_dir(job, checkpoint_id) + "_metadata"; }

std::string shared_state_prefix(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task) {
    return checkpoint_prefix(job) + "shared/" + job.vertices[static_cast<size_t>(task.vertex)].id + "-" + std::to_string(task.subtask) +
           "-a" + std::to_string(task.attempt) + "-c" + std::to_string(checkpoint_id) + "-";
}

int64_t checkpoint_id_of(const std::string& key) {
    const size_t at = key.find("/chk-");
    if (at == std::string::npos) return 0;
    int64_t id = 0;
    for (size_t i = at + 5; i < key.size() && key[i] >= '0' && key[i] <= '9'; ++i) id = id * 10 + (key[i] - '0');
    return id;
}

CheckpointStorageUse checkpoint_storage_use(const JobSpec& job, const std::map<std::string, std::string>& blobs,
                                           const std::function<bool(const std::string&)>& being_removed) {
    const std::string prefix = checkpoint_prefix(job);
    std::set<std::string> retained;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix); ++it) {
        if (!it->first.ends_with("/_metadata") || being_removed(it->first)) continue;
        retained.insert(it->first);
        const CompletedCheckpoint checkpoint = parse_checkpoint_metadata(it->second);
        for (const auto& [where, handle] : checkpoint.handles) retained.insert(handle);
        for (const auto& [where, files] : checkpoint.shared) retained.insert(files.begin(), files.end());
    }
    CheckpointStorageUse use;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix); ++it) {
        const std::string& key = it->first;
        if (checkpoint_id_counter_value(key) != 0 || being_removed(key)) continue;
        CheckpointFiles& side = retained.contains(key) ? use.retained : use.unretained;
        ++side.files;
        side.bytes += static_cast<int64_t>(it->second.size());
    }
    return use;
}

StoredCheckpoints read_checkpoint_listing(const std::vector<std::string>& keys) {
    StoredCheckpoints found;
    std::map<int64_t, std::vector<std::string>> files;  // checkpoint id -> its files
    std::set<int64_t> completed;
    for (const std::string& key : keys) {
        if (const int64_t counted = checkpoint_id_counter_value(key); counted > found.highest_id) {
            found.highest_id = counted;
            found.counter_key = key;
        }
        const int64_t id = checkpoint_id_of(key);
        if (id == 0) continue;
        found.highest_id = std::max(found.highest_id, id);
        files[id].push_back(key);
        if (key.ends_with("/_metadata")) completed.insert(id);
    }
    if (completed.empty()) return found;
    found.latest_metadata_key = metadata_key_of(files[*completed.rbegin()]);
    for (auto it = completed.begin(); *it != *completed.rbegin(); ++it) {
        CompletedCheckpoint older;
        older.id = *it;
        int32_t n = 0;
        for (const std::string& key : files[*it]) {
            if (key.ends_with("/_metadata")) {
                older.metadata_key = key;
            } else {
                older.handles[{-1, n++}] = key;
            }
        }
        found.older_completed.push_back(std::move(older));
    }
    return found;
}

std::string serialize_checkpoint_metadata(const CompletedCheckpoint& checkpoint, const std::vector<std::string>& older_shared) {
    nlohmann::json metadata = {{"checkpoint", checkpoint.id}, {"handles", nlohmann::json::array()},
                               {"offsets", nlohmann::json::array()},
                               {"state_bytes", checkpoint.state_bytes}};
    for (const auto& [where, handle] : checkpoint.handles) {
        metadata["handles"].push_back({{"vertex", where.first}, {"subtask", where.second}, {"key", handle}});
    }
    for (const auto& [where, offset] : checkpoint.offsets) {
        metadata["offsets"].push_back({{"topic", where.first}, {"partition", where.second}, {"offset", offset}});
    }
    if (checkpoint.savepoint) metadata["savepoint"] = true;  // a stop-with-savepoint's pointer: the files are the user's
    // Incremental state only (full snapshots keep the metadata as it was).
    if (!checkpoint.shared.empty() || !older_shared.empty()) {
        metadata["shared"] = nlohmann::json::array();
        for (const auto& [where, files] : checkpoint.shared) {
            metadata["shared"].push_back({{"vertex", where.first}, {"subtask", where.second}, {"keys", files}});
        }
        metadata["shared_bytes_uploaded"] = checkpoint.shared_bytes_uploaded;
        metadata["shared_bytes_referenced"] = checkpoint.shared_bytes_referenced;
        metadata["older_shared"] = older_shared;
    }
    return metadata.dump();
}

CompletedCheckpoint parse_checkpoint_metadata(const std::string& text) {
    const nlohmann::json metadata = nlohmann::json::parse(text);
    CompletedCheckpoint checkpoint;
    checkpoint.id = metadata.at("checkpoint").get<int64_t>();
    checkpoint.state_bytes = metadata.value("state_bytes", int64_t{0});
    checkpoint.metadata_bytes = static_cast<int64_t>(text.size());
    checkpoint.savepoint = metadata.value("savepoint", false);
    for (const auto& h : metadata.at("handles")) {
        checkpoint.handles[{h.at("vertex").get<int32_t>(), h.at("subtask").get<int32_t>()}] = h.at("key").get<std::string>();
    }
    for (const auto& o : metadata.at("offsets")) {
        checkpoint.offsets[{o.at("topic").get<std::string>(), o.at("partition").get<int32_t>()}] = o.at("offset").get<int64_t>();
    }
    if (metadata.contains("shared")) {
        for (const auto& s : metadata.at("shared")) {
            checkpoint.shared[{s.at("vertex").get<int32_t>(), s.at("subtask").get<int32_t>()}] = s.at("keys").get<std::vector<std::string>>();
        }
        checkpoint.shared_bytes_uploaded = metadata.value("shared_bytes_uploaded", int64_t{0});
        checkpoint.shared_bytes_referenced = metadata.value("shared_bytes_referenced", int64_t{0});
        checkpoint.older_shared = metadata.value("older_shared", std::vector<std::string>{});
    }
    return checkpoint;
}

}  // namespace eosim::engine
