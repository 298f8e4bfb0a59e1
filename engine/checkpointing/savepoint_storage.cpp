#include "engine/checkpointing/savepoint_storage.h"

#include <map>

#include <nlohmann/json.hpp>

namespace eosim::engine {

namespace {
std::string savepoint_dir(const JobSpec& job, int64_t savepoint_id) {
    return savepoint_prefix(job) + "savepoint-" + std::to_string(savepoint_id) + "/";
}

// Operators whose snapshots carry state: sources (offsets), keyed operators, sinks (transactions).
bool holds_state(const VertexSpec& v) {
    return is_source_kind(v.kind) || is_keyed(v.kind) || v.kind == OperatorKind::sink;
}
}  // namespace

std::string savepoint_prefix(const JobSpec& job) { return "savepoints/" + job.name + "/"; }

std::string savepoint_state_key(const JobSpec& job, int64_t savepoint_id, const TaskKey& task) {
    return savepoint_dir(job, savepoint_id) +
           job.vertices[static_cast<size_t>(task.vertex)].uid_or_id() + "-" +
           std::to_string(task.subtask) + "-a" + std::to_string(task.attempt);
}

std::string savepoint_metadata_key(const JobSpec& job, int64_t savepoint_id) {
    return savepoint_dir(job, savepoint_id) + "_metadata";
}

std::string serialize_savepoint_metadata(const JobSpec& job, const CompletedCheckpoint& savepoint) {
    nlohmann::json metadata = {{"savepoint", savepoint.id},
                               {"job", job.name},
                               {"format", "canonical"},
                               {"operators", nlohmann::json::array()},
                               {"offsets", nlohmann::json::array()}};
    for (size_t v = 0; v < job.vertices.size(); ++v) {
        const VertexSpec& vertex = job.vertices[v];
        if (!holds_state(vertex)) continue;
        nlohmann::json op = {{"uid", vertex.uid_or_id()},
                             {"parallelism", vertex.parallelism},
                             {"max_parallelism", job.max_parallelism},
                             {"state", nlohmann::json::array()}};
        for (const auto& [where, handle] : savepoint.handles) {
            if (where.first == static_cast<int32_t>(v))
                op["state"].push_back({{"subtask", where.second}, {"key", handle}});
        }
        metadata["operators"].push_back(std::move(op));
    }
    for (const auto& [where, offset] : savepoint.offsets) {
        metadata["offsets"].push_back(
            {{"topic", where.first}, {"partition", where.second}, {"offset", offset}});
    }
    return metadata.dump();
}

SavepointMetadata parse_savepoint_metadata(const std::string& text) {
    const nlohmann::json metadata = nlohmann::json::parse(text);
    SavepointMetadata savepoint;
    savepoint.id = metadata.at("savepoint").get<int64_t>();
    savepoint.job = metadata.at("job").get<std::string>();
    for (const auto& op : metadata.at("operators")) {
        SavepointOperator parsed;
        parsed.uid = op.at("uid").get<std::string>();
        parsed.parallelism = op.at("parallelism").get<int32_t>();
        parsed.max_parallelism = op.at("max_parallelism").get<int32_t>();
        for (const auto& s : op.at("state"))
            parsed.subtask_state.emplace_back(s.at("subtask").get<int32_t>(),
                                              s.at("key").get<std::string>());
        savepoint.operators.push_back(std::move(parsed));
    }
    for (const auto& o : metadata.at("offsets")) {
        savepoint.offsets[{o.at("topic").get<std::string>(), o.at("partition").get<int32_t>()}] =
            o.at("offset").get<int64_t>();
    }
    return savepoint;
}

SavepointFiles savepoint_files(const JobSpec& job,
                               const std::map<std::string, std::string>& blobs) {
    const std::string prefix = savepoint_prefix(job);
    SavepointFiles found;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix);
         ++it) {
        ++found.files;
        if (!it->first.ends_with("/_metadata")) continue;
        ++found.savepoints;
        for (const SavepointOperator& op : parse_savepoint_metadata(it->second).operators) {
            for (const auto& [subtask, key] : op.subtask_state) {
                if (blobs.contains(key)) continue;
                if (found.missing++ == 0) found.first_missing = key;
            }
        }
    }
    return found;
}

SavepointRestore restore_from_savepoint(const SavepointMetadata& savepoint, const std::string& path,
                                        const JobSpec& job, bool allow_non_restored_state) {
    std::map<std::string, int32_t> by_uid;
    for (size_t v = 0; v < job.vertices.size(); ++v)
        by_uid[job.vertices[v].uid_or_id()] = static_cast<int32_t>(v);
    SavepointRestore result;
    CompletedCheckpoint restore;
    restore.id = savepoint.id;
    restore.savepoint = true;
    restore.offsets = savepoint.offsets;
    restore.metadata_key = path;
    for (const SavepointOperator& op : savepoint.operators) {
        auto match = by_uid.find(op.uid);
        if (match == by_uid.end()) {
            if (allow_non_restored_state) {
                result.skipped_uids.push_back(op.uid);
                continue;
            }
            // Flink's text (Checkpoints.loadAndValidateCheckpoint), the operator named by its uid.
            result.error =
                "Failed to rollback to checkpoint/savepoint " + path +
                ". Cannot map checkpoint/savepoint state for operator " + op.uid +
                " to the new program, because the operator is not available in the new program. If you want to "
                "allow to skip this, you can set the --allowNonRestoredState option on the CLI.";
            return result;
        }
        if (op.max_parallelism != job.max_parallelism) {
            result.error =
                "Failed to rollback to checkpoint/savepoint " + path +
                ". Max parallelism mismatch between checkpoint/savepoint "
                "state and new program. Cannot map operator " +
                op.uid + " with max parallelism " + std::to_string(op.max_parallelism) +
                " to new program with max parallelism " + std::to_string(job.max_parallelism) +
                ". This indicates that the program has been changed in a non-compatible way after the checkpoint/savepoint.";
            return result;
        }
        const int32_t vertex = match->second;
        for (const auto& [subtask, key] : op.subtask_state)
            restore.handles[{vertex, subtask}] = key;
        if (op.parallelism != job.vertices[static_cast<size_t>(vertex)].parallelism)
            restore.rescaled_from[vertex] = op.parallelism;
    }
    result.restore = std::move(restore);
    return result;
}

SavepointRestore restore_from_retained_checkpoint(const CompletedCheckpoint& checkpoint,
                                                  const JobSpec& writer, const std::string& path,
                                                  const JobSpec& job,
                                                  bool allow_non_restored_state) {
    for (const auto& [vertex, subtask] : checkpoint.finished) {
        // A finished source's splits resume at the checkpoint's offsets; any other finished task's
        // final state is gone.
        if (is_source_kind(writer.vertices[static_cast<size_t>(vertex)].kind)) continue;
        SavepointRestore refused;
        refused.error =
            "Failed to restore checkpoint " + std::to_string(checkpoint.id) + " from " + path +
            ": subtask " + std::to_string(subtask) + " of '" +
            writer.vertices[static_cast<size_t>(vertex)].id +
            "' had finished and left no state; eosim restores such a checkpoint only within its own job";
        return refused;
    }
    // The checkpoint as the operators (by uid) of the writer's program, then matched as a savepoint
    // is.
    SavepointMetadata as_operators;
    as_operators.id = checkpoint.id;
    as_operators.job = writer.name;
    as_operators.offsets = checkpoint.offsets;
    for (size_t v = 0; v < writer.vertices.size(); ++v) {
        const VertexSpec& vertex = writer.vertices[v];
        if (!holds_state(vertex)) continue;
        SavepointOperator op{vertex.uid_or_id(), vertex.parallelism, writer.max_parallelism, {}};
        for (const auto& [where, handle] : checkpoint.handles) {
            if (where.first == static_cast<int32_t>(v))
                op.subtask_state.emplace_back(where.second, handle);
        }
        as_operators.operators.push_back(std::move(op));
    }
    SavepointRestore result =
        restore_from_savepoint(as_operators, path, job, allow_non_restored_state);
    if (result.restore) {
        result.restore->savepoint =
            checkpoint.savepoint;  // a stop-with-savepoint's pointer holds canonical state
        result.restore->no_claim = true;
    }
    return result;
}

}  // namespace eosim::engine
