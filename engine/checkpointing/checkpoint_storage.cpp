#include "engine/checkpointing/checkpoint_storage.h"

#include <algorithm>
#include <cstdio>
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
    // Appended to one string with room for it all (a key per task snapshot; the chain of + grew it
    // piece by piece).
    const std::string& vertex = job.vertices[static_cast<size_t>(task.vertex)].id;
    std::string key;
    key.reserve(job.name.size() + vertex.size() + 64);
    key += checkpoint_dir(job, checkpoint_id);
    key += vertex;
    key += '-';
    key += std::to_string(task.subtask);
    key += "-a";
    key += std::to_string(task.attempt);
    return key;
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
    for (size_t i = at + kCounterDir.size(); i < key.size() && key[i] >= '0' && key[i] <= '9';
         ++i) {
        id = id * 10 + (key[i] - '0');
    }
    return id;
}

std::string metadata_key(const JobSpec& job, int64_t checkpoint_id) {
    return checkpoint_dir(job, checkpoint_id) + "_metadata";
}

std::string shared_state_prefix(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task) {
    return checkpoint_prefix(job) + "shared/" + job.vertices[static_cast<size_t>(task.vertex)].id +
           "-" + std::to_string(task.subtask) + "-a" + std::to_string(task.attempt) + "-c" +
           std::to_string(checkpoint_id) + "-";
}

int64_t checkpoint_id_of(const std::string& key) {
    const size_t at = key.find("/chk-");
    if (at == std::string::npos) return 0;
    int64_t id = 0;
    for (size_t i = at + 5; i < key.size() && key[i] >= '0' && key[i] <= '9'; ++i)
        id = id * 10 + (key[i] - '0');
    return id;
}

CheckpointStorageUse checkpoint_storage_use(
    const JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed) {
    const std::string prefix = checkpoint_prefix(job);
    std::set<std::string> retained;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix);
         ++it) {
        if (!it->first.ends_with("/_metadata") || being_removed(it->first)) continue;
        retained.insert(it->first);
        const CompletedCheckpoint checkpoint = parse_checkpoint_metadata(it->second);
        for (const auto& [where, handle] : checkpoint.handles) retained.insert(handle);
        for (const auto& [where, files] : checkpoint.shared)
            retained.insert(files.begin(), files.end());
    }
    CheckpointStorageUse use;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix);
         ++it) {
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

namespace {

// The metadata's JSON text, written directly rather than built as an nlohmann::json document first
// (building it would cost ~5% of a standard run's instructions). Members come in the order nlohmann
// writes an object's (sorted by name) and strings are escaped as nlohmann escapes them, so the text
// is byte for byte what `nlohmann::json::dump()` of the same document gives
// (tests/engine/test_checkpoint_storage.cpp).
class MetadataWriter {
public:
    void open_object() { separate(), text_ += '{', first_ = true; }
    void close_object() { text_ += '}', first_ = false; }
    void open_array(std::string_view name) { member(name), text_ += '[', first_ = true; }
    void close_array() { text_ += ']', first_ = false; }
    void number(std::string_view name, int64_t value) {
        member(name), text_ += std::to_string(value);
    }
    void string(std::string_view name, const std::string& value) {
        member(name), string_value(value);
    }
    void boolean(std::string_view name, bool value) {
        member(name), text_ += value ? "true" : "false";
    }
    void strings(std::string_view name, const std::vector<std::string>& values) {
        open_array(name);
        for (const std::string& value : values) separate(), string_value(value);
        close_array();
    }
    std::string take() { return std::move(text_); }

private:
    void separate() {
        if (!first_) text_ += ',';
        first_ = false;
    }
    void member(std::string_view name) {
        separate();
        text_ += '"';
        text_ += name;  // the names below need no escaping
        text_ += "\":";
    }
    // JSON's escapes, as nlohmann writes them (UTF-8 passes through: the names come from JSON
    // input).
    void string_value(const std::string& value) {
        text_ += '"';
        // Runs of characters that need no escape are appended whole (the metadata is mostly storage
        // keys, with nothing to escape; appending character by character was most of its cost).
        size_t run = 0;
        for (size_t i = 0; i < value.size(); ++i) {
            const char c = value[i];
            if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) continue;
            text_.append(value, run, i - run);
            escape(c);
            run = i + 1;
        }
        text_.append(value, run, std::string::npos);
        text_ += '"';
    }

    // A character JSON strings escape: '"', '\\' and the control characters (nlohmann's escapes).
    void escape(char c) {
        switch (c) {
            case '"': text_ += "\\\""; break;
            case '\\': text_ += "\\\\"; break;
            case '\b': text_ += "\\b"; break;
            case '\f': text_ += "\\f"; break;
            case '\n': text_ += "\\n"; break;
            case '\r': text_ += "\\r"; break;
            case '\t': text_ += "\\t"; break;
            default: {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                text_ += escaped;
            }
        }
    }

    std::string text_;
    bool first_ = true;
};

}  // namespace

std::string serialize_checkpoint_metadata(const CompletedCheckpoint& checkpoint,
                                          const std::vector<std::string>& older_shared) {
    // Incremental state only (full snapshots keep the metadata as it was).
    const bool incremental = !checkpoint.shared.empty() || !older_shared.empty();
    MetadataWriter w;
    w.open_object();
    w.number("checkpoint", checkpoint.id);
    if (!checkpoint.finished
             .empty()) {  // FLIP-147: subtasks that had finished (no state of theirs here)
        w.open_array("finished");
        for (const auto& [vertex, subtask] : checkpoint.finished) {
            w.open_object();
            w.number("subtask", subtask);
            w.number("vertex", vertex);
            w.close_object();
        }
        w.close_array();
    }
    w.open_array("handles");
    for (const auto& [where, handle] : checkpoint.handles) {
        w.open_object();
        w.string("key", handle);
        w.number("subtask", where.second);
        w.number("vertex", where.first);
        w.close_object();
    }
    w.close_array();
    w.open_array("offsets");
    for (const auto& [where, offset] : checkpoint.offsets) {
        w.open_object();
        w.number("offset", offset);
        w.number("partition", where.second);
        w.string("topic", where.first);
        w.close_object();
    }
    w.close_array();
    if (incremental) w.strings("older_shared", older_shared);
    if (checkpoint.savepoint)
        w.boolean("savepoint", true);  // a stop-with-savepoint's pointer: the files are the user's
    if (incremental) {
        w.open_array("shared");
        for (const auto& [where, files] : checkpoint.shared) {
            w.open_object();
            w.strings("keys", files);
            w.number("subtask", where.second);
            w.number("vertex", where.first);
            w.close_object();
        }
        w.close_array();
        w.number("shared_bytes_referenced", checkpoint.shared_bytes_referenced);
        w.number("shared_bytes_uploaded", checkpoint.shared_bytes_uploaded);
    }
    w.number("state_bytes", checkpoint.state_bytes);
    w.close_object();
    return w.take();
}

CompletedCheckpoint parse_checkpoint_metadata(const std::string& text) {
    const nlohmann::json metadata = nlohmann::json::parse(text);
    CompletedCheckpoint checkpoint;
    checkpoint.id = metadata.at("checkpoint").get<int64_t>();
    checkpoint.state_bytes = metadata.value("state_bytes", int64_t{0});
    checkpoint.metadata_bytes = static_cast<int64_t>(text.size());
    checkpoint.savepoint = metadata.value("savepoint", false);
    for (const auto& h : metadata.at("handles")) {
        checkpoint.handles[{h.at("vertex").get<int32_t>(), h.at("subtask").get<int32_t>()}] =
            h.at("key").get<std::string>();
    }
    for (const auto& o : metadata.at("offsets")) {
        checkpoint.offsets[{o.at("topic").get<std::string>(), o.at("partition").get<int32_t>()}] =
            o.at("offset").get<int64_t>();
    }
    if (metadata.contains("finished")) {
        for (const auto& f : metadata.at("finished"))
            checkpoint.finished.insert(
                {f.at("vertex").get<int32_t>(), f.at("subtask").get<int32_t>()});
    }
    if (metadata.contains("shared")) {
        for (const auto& s : metadata.at("shared")) {
            checkpoint.shared[{s.at("vertex").get<int32_t>(), s.at("subtask").get<int32_t>()}] =
                s.at("keys").get<std::vector<std::string>>();
        }
        checkpoint.shared_bytes_uploaded = metadata.value("shared_bytes_uploaded", int64_t{0});
        checkpoint.shared_bytes_referenced = metadata.value("shared_bytes_referenced", int64_t{0});
        checkpoint.older_shared = metadata.value("older_shared", std::vector<std::string>{});
    }
    return checkpoint;
}

}  // namespace eosim::engine
