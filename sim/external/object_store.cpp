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
        case ObjectError::invalid_part: return "invalid_part";
    }
    return "unknown";
}

ObjectStore::ObjectStore(Scheduler& scheduler, Network& network, NodeId node)
    : OutsideSystem(scheduler, network, node) {}

bool ObjectStore::admit_write_or(NodeId caller, ObjectResult* failure) {
    bool unreachable = false;
    if (admit_write(caller, &unreachable)) return true;
    failure->error = unreachable ? ObjectError::unavailable : ObjectError::write_failed;
    return false;
}

ObjectResult ObjectStore::put(NodeId caller, const std::string& path, std::string bytes) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
    auto it = objects_.find(path);
    if (it != objects_.end() && it->second == bytes) {
        count_absorbed();
        return result;
    }
    objects_[path] = std::move(bytes);
    count_applied();
    return result;
}

ObjectResult ObjectStore::get(NodeId caller, const std::string& path) {
    ObjectResult result;
    if (!admit(caller)) {
        result.error = ObjectError::unavailable;
        return result;
    }
    auto it = objects_.find(path);
    if (it == objects_.end()) {
        result.error = ObjectError::not_found;
        return result;
    }
    result.bytes = it->second;
    return result;
}

ObjectResult ObjectStore::list(NodeId caller, const std::string& prefix) {
    ObjectResult result;
    if (!admit(caller)) {
        result.error = ObjectError::unavailable;
        return result;
    }
    for (auto it = objects_.lower_bound(prefix); it != objects_.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        result.objects.push_back(ObjectInfo{it->first, it->second.size()});
    }
    return result;
}

ObjectResult ObjectStore::remove(NodeId caller, const std::string& path) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
    if (objects_.erase(path) == 0) {
        result.error = ObjectError::not_found;
        count_absorbed();
        return result;
    }
    count_applied();
    return result;
}

ObjectResult ObjectStore::rename(NodeId caller, const std::string& from, const std::string& to) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
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
    objects_[to] = std::move(bytes);
    count_applied();
    return result;
}

ObjectResult ObjectStore::copy(NodeId caller, const std::string& from, const std::string& to) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
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
}

ObjectResult ObjectStore::initiate_upload(NodeId caller, const std::string& path) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
    result.upload_id = next_upload_id_++;
    uploads_[result.upload_id] = Upload{path, {}};
    return result;
}

ObjectResult ObjectStore::upload_part(NodeId caller, int64_t upload_id, int32_t part_number, std::string bytes) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
    auto it = uploads_.find(upload_id);
    if (it == uploads_.end()) {
        result.error = ObjectError::no_such_upload;
        return result;
    }
    it->second.parts[part_number] = std::move(bytes);
    return result;
}

ObjectResult ObjectStore::complete_upload(NodeId caller, int64_t upload_id) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
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
    objects_[it->second.path] = std::move(bytes);
    uploads_.erase(it);
    count_applied();
    return result;
}

ObjectResult ObjectStore::abort_upload(NodeId caller, int64_t upload_id) {
    ObjectResult result;
    if (!admit_write_or(caller, &result)) return result;
    if (uploads_.erase(upload_id) == 0) result.error = ObjectError::no_such_upload;
    return result;
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
