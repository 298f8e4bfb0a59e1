#include "sim/external/object_store.h"

namespace eosim::sim::external {

const char* to_string(ObjectError error) {
    switch (error) {
        case ObjectError::none: return "none";
        case ObjectError::unavailable: return "unavailable";
        case ObjectError::write_failed: return "write_failed";
        case ObjectError::not_found: return "not_found";
        case ObjectError::already_exists: return "already_exists";
        case ObjectError::no_such_upload: return "no_such_upload";
        case ObjectError::timeout: return "timeout";
        case ObjectError::invalid_part: return "invalid_part";
    }
    return "unknown";
}

ObjectStore::ObjectStore(Scheduler& scheduler, Network& network, NodeId node)
    : OutsideSystem(scheduler, network, node) {}

namespace {

std::string bytes_text(const std::string& bytes) {
    std::string shown;
    for (char c : bytes.substr(0, 40)) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
    return " (" + std::to_string(bytes.size()) + " bytes: \"" + shown +
           (bytes.size() > 40 ? "...\")" : "\")");
}

std::string answer(const ObjectResult& r) {
    if (r.error == ObjectError::timeout)
        return "timeout (no answer: it may have applied, or may still land)";
    if (r.error != ObjectError::none) return to_string(r.error);
    if (r.upload_id >= 0) return "ok, upload " + std::to_string(r.upload_id);
    return "ok";
}

}  // namespace

ObjectResult ObjectStore::write_call(NodeId caller, const std::function<std::string()>& call,
                                     std::function<ObjectResult()> apply) {
    ObjectResult result;
    if (admit_write_or(caller, &result)) {
        ObjectResult timed_out;
        timed_out.error = ObjectError::timeout;
        result = deliver_write<ObjectResult>(caller, call, std::move(apply), timed_out);
    }
    races().note(caller, call, [&] { return answer(result); });
    return result;
}

bool ObjectStore::admit_write_or(NodeId caller, ObjectResult* failure) {
    bool unreachable = false;
    if (admit_write(caller, &unreachable)) return true;
    failure->error = unreachable ? ObjectError::unavailable : ObjectError::write_failed;
    return false;
}

ObjectResult ObjectStore::put(NodeId caller, const std::string& path, std::string bytes) {
    return write_call(
        caller, [&] { return "PUT " + path + bytes_text(bytes); },
        [this, path, bytes = bytes]() mutable {
            ObjectResult result;
            auto it = objects_.find(path);
            if (it != objects_.end() && it->second == bytes) {
                count_absorbed();
                return result;
            }
            objects_[path] = bytes;
            count_applied();
            return result;
        });
}

ObjectResult ObjectStore::get(NodeId caller, const std::string& path) {
    ObjectResult result;
    if (!admit(caller)) {
        result.error = ObjectError::unavailable;
    } else if (auto it = objects_.find(path); it == objects_.end()) {
        result.error = ObjectError::not_found;
    } else {
        result.bytes = it->second;
    }
    races().note(
        caller, [&] { return "GET " + path; },
        [&] {
            return result.error != ObjectError::none ? answer(result)
                                                     : "ok" + bytes_text(result.bytes);
        });
    return result;
}

ObjectResult ObjectStore::list(NodeId caller, const std::string& prefix) {
    ObjectResult result;
    if (admit(caller)) {
        for (auto it = objects_.lower_bound(prefix); it != objects_.end(); ++it) {
            if (it->first.compare(0, prefix.size(), prefix) != 0) break;
            result.objects.push_back(ObjectInfo{it->first, it->second.size()});
        }
    } else {
        result.error = ObjectError::unavailable;
    }
    races().note(
        caller, [&] { return "LIST " + prefix; },
        [&] {
            if (result.error != ObjectError::none) return answer(result);
            std::string names;
            for (const ObjectInfo& o : result.objects) names += (names.empty() ? "" : " ") + o.path;
            return std::to_string(result.objects.size()) + " object(s)" +
                   (names.empty() ? "" : ": " + names);
        });
    return result;
}

ObjectResult ObjectStore::remove(NodeId caller, const std::string& path) {
    return write_call(
        caller, [&] { return "DELETE " + path; },
        [this, path] {
            ObjectResult result;
            if (objects_.erase(path) == 0) {
                result.error = ObjectError::not_found;
                count_absorbed();
                return result;
            }
            count_applied();
            return result;
        });
}

ObjectResult ObjectStore::rename(NodeId caller, const std::string& from, const std::string& to) {
    return write_call(
        caller, [&] { return "RENAME " + from + " TO " + to; },
        [this, from, to] {
            ObjectResult result;
            auto source = objects_.find(from);
            if (source == objects_.end()) {
                result.error = ObjectError::not_found;
                return result;
            }
            if (objects_.count(to) != 0) {
                result.error = ObjectError::already_exists;
                return result;
            }
            std::string bytes = std::move(source->second);
            objects_.erase(source);
            objects_[to] = bytes;
            count_applied();
            return result;
        });
}

ObjectResult ObjectStore::copy(NodeId caller, const std::string& from, const std::string& to) {
    return write_call(
        caller, [&] { return "COPY " + from + " TO " + to; },
        [this, from, to] {
            ObjectResult result;
            auto source = objects_.find(from);
            if (source == objects_.end()) {
                result.error = ObjectError::not_found;
                return result;
            }
            auto target = objects_.find(to);
            if (target != objects_.end() && target->second == source->second) {
                count_absorbed();
                return result;
            }
            objects_[to] = source->second;
            count_applied();
            return result;
        });
}

ObjectResult ObjectStore::initiate_upload(NodeId caller, const std::string& path) {
    return write_call(
        caller, [&] { return "INITIATE UPLOAD " + path; },
        [this, path] {
            ObjectResult result;
            result.upload_id = next_upload_id_++;
            uploads_[result.upload_id] = Upload{path, {}};
            return result;
        });
}

ObjectResult ObjectStore::upload_part(NodeId caller, int64_t upload_id, int32_t part_number,
                                      std::string bytes) {
    return write_call(
        caller,
        [&] {
            return "UPLOAD PART " + std::to_string(part_number) + " of upload " +
                   std::to_string(upload_id) + bytes_text(bytes);
        },
        [this, upload_id, part_number, bytes = bytes]() mutable {
            ObjectResult result;
            auto it = uploads_.find(upload_id);
            if (it == uploads_.end()) {
                result.error = ObjectError::no_such_upload;
                return result;
            }
            it->second.parts[part_number] = bytes;
            return result;
        });
}

ObjectResult ObjectStore::complete_upload(NodeId caller, int64_t upload_id) {
    return write_call(
        caller, [&] { return "COMPLETE UPLOAD " + std::to_string(upload_id); },
        [this, upload_id] {
            ObjectResult result;
            auto it = uploads_.find(upload_id);
            if (it == uploads_.end()) {
                result.error = ObjectError::no_such_upload;
                return result;
            }
            if (it->second.parts.empty()) {
                result.error = ObjectError::invalid_part;
                return result;
            }
            std::string bytes;
            for (const auto& [number, part] : it->second.parts) bytes += part;
            objects_[it->second.path] = bytes;
            uploads_.erase(it);
            count_applied();
            return result;
        });
}

ObjectResult ObjectStore::abort_upload(NodeId caller, int64_t upload_id) {
    return write_call(
        caller, [&] { return "ABORT UPLOAD " + std::to_string(upload_id); },
        [this, upload_id] {
            ObjectResult result;
            if (uploads_.erase(upload_id) == 0) result.error = ObjectError::no_such_upload;
            return result;
        });
}

std::optional<std::string> ObjectStore::peek(const std::string& path) const {
    auto it = objects_.find(path);
    if (it == objects_.end()) return std::nullopt;
    return it->second;
}

std::vector<int64_t> ObjectStore::open_uploads() const {
    std::vector<int64_t> ids;
    for (const auto& [id, upload] : uploads_) ids.push_back(id);
    return ids;
}

}  // namespace eosim::sim::external
