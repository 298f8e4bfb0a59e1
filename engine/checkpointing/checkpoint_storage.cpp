#include "engine/checkpointing/checkpoint_storage.h"

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
           std::to_string(task.subtask);
}

std::string metadata_key(const JobSpec& job, int64_t checkpoint_id) { return checkpoint_dir(job, checkpoint_id) + "_metadata"; }

int64_t checkpoint_id_of(const std::string& key) {
    const size_t at = key.find("/chk-");
    if (at == std::string::npos) return 0;
    int64_t id = 0;
    for (size_t i = at + 5; i < key.size() && key[i] >= '0' && key[i] <= '9'; ++i) id = id * 10 + (key[i] - '0');
    return id;
}

std::string serialize_checkpoint_metadata(const CompletedCheckpoint& checkpoint) {
    nlohmann::json metadata = {{"checkpoint", checkpoint.id}, {"handles", nlohmann::json::array()},
                               {"offsets", nlohmann::json::array()}};
    for (const auto& [where, handle] : checkpoint.handles) {
        metadata["handles"].push_back({{"vertex", where.first}, {"subtask", where.second}, {"key", handle}});
    }
    for (const auto& [where, offset] : checkpoint.offsets) {
        metadata["offsets"].push_back({{"topic", where.first}, {"partition", where.second}, {"offset", offset}});
    }
    return metadata.dump();
}

CompletedCheckpoint parse_checkpoint_metadata(const std::string& text) {
    const nlohmann::json metadata = nlohmann::json::parse(text);
    CompletedCheckpoint checkpoint;
    checkpoint.id = metadata.at("checkpoint").get<int64_t>();
    for (const auto& h : metadata.at("handles")) {
        checkpoint.handles[{h.at("vertex").get<int32_t>(), h.at("subtask").get<int32_t>()}] = h.at("key").get<std::string>();
    }
    for (const auto& o : metadata.at("offsets")) {
        checkpoint.offsets[{o.at("topic").get<std::string>(), o.at("partition").get<int32_t>()}] = o.at("offset").get<int64_t>();
    }
    return checkpoint;
}

}  // namespace eosim::engine
