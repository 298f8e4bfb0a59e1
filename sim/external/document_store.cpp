#include "sim/external/document_store.h"

namespace eosim::sim::external {

const char* to_string(DocumentError error) {
    switch (error) {
        case DocumentError::none: return "none";
        case DocumentError::unavailable: return "unavailable";
        case DocumentError::write_failed: return "write_failed";
        case DocumentError::rejected: return "rejected";
        case DocumentError::conflict: return "conflict";
        case DocumentError::not_found: return "not_found";
        case DocumentError::no_such_index: return "no_such_index";
    }
    return "unknown";
}

bool BulkResponse::errors() const {
    if (error != DocumentError::none) return true;
    for (const DocumentWriteResult& item : items) {
        if (item.error != DocumentError::none) return true;
    }
    return false;
}

DocumentStore::DocumentStore(Scheduler& scheduler, Network& network, NodeId node, Prng prng)
    : OutsideSystem(scheduler, network, node), prng_(prng) {}

void DocumentStore::create_index(const std::string& index) { indices_[index]; }

void DocumentStore::set_partial_batch_failure(Ratio ratio, Time until) {
    partial_failure_ = ratio;
    partial_failure_until_ = until;
}

DocumentWriteResult DocumentStore::apply_with_id(Index& index, const std::string& id, const DocumentWrite& write) {
    DocumentWriteResult result;
    result.id = id;
    auto it = index.find(id);
    const bool external = write.version_type == VersionType::external;
    if (it == index.end()) {
        if (write.op == DocumentOp::update) {
            result.error = DocumentError::not_found;
            return result;
        }
        Document& doc = index[id];
        doc.id = id;
        doc.version = external ? write.version : 1;
        doc.fields = write.fields;
        result.version = doc.version;
        result.outcome = WriteOutcome::created;
        count_applied();
        return result;
    }
    Document& doc = it->second;
    result.version = doc.version;
    if (write.op == DocumentOp::create || (external && write.version <= doc.version)) {
        result.error = DocumentError::conflict;  // nothing changes: a replay the store absorbed
        count_absorbed();
        return result;
    }
    DocumentFields fields = write.fields;
    if (write.op == DocumentOp::update) {
        fields = doc.fields;
        for (const auto& [name, value] : write.fields) fields[name] = value;
        if (fields == doc.fields && !external) {  // detect_noop: the version stays
            count_absorbed();
            result.outcome = WriteOutcome::noop;
            return result;
        }
    }
    const bool same_content = fields == doc.fields;
    doc.fields = std::move(fields);
    doc.version = external ? write.version : doc.version + 1;
    result.version = doc.version;
    result.outcome = WriteOutcome::updated;
    if (same_content) {
        count_absorbed();
    } else {
        count_applied();
    }
    return result;
}

DocumentWriteResult DocumentStore::apply(Index& index, const DocumentWrite& write) {
    if (write.id) return apply_with_id(index, *write.id, write);
    if (write.op == DocumentOp::update) {
        DocumentWriteResult result;
        result.error = DocumentError::not_found;  // an update needs an id
        return result;
    }
    const std::string id = "auto-" + std::to_string(next_generated_id_++);
    return apply_with_id(index, id, write);
}

DocumentWriteResult DocumentStore::write(NodeId caller, const std::string& index, const DocumentWrite& write) {
    bool unreachable = false;
    if (!admit_write(caller, &unreachable)) {
        DocumentWriteResult result;
        result.error = unreachable ? DocumentError::unavailable : DocumentError::write_failed;
        return result;
    }
    return apply(indices_[index], write);  // indices are created on first write, as by default
}

BulkResponse DocumentStore::bulk(NodeId caller, const std::string& index, const std::vector<DocumentWrite>& writes) {
    BulkResponse response;
    bool unreachable = false;
    if (!admit_write(caller, &unreachable)) {
        response.error = unreachable ? DocumentError::unavailable : DocumentError::write_failed;
        return response;
    }
    Index& target = indices_[index];
    const bool partial = now() < partial_failure_until_ && !partial_failure_.is_zero();
    response.items.reserve(writes.size());
    bool item_failed = false;  // a conflict is an answer (the replay was absorbed), not a failure
    for (const DocumentWrite& write : writes) {
        if (partial && prng_.chance(partial_failure_)) {
            DocumentWriteResult item;
            item.error = DocumentError::rejected;
            if (write.id) item.id = *write.id;
            ++rejected_items_;
            item_failed = true;
            response.items.push_back(std::move(item));
            continue;
        }
        response.items.push_back(apply(target, write));
        const DocumentError e = response.items.back().error;
        if (e != DocumentError::none && e != DocumentError::conflict) item_failed = true;
    }
    if (item_failed) count_failed();
    return response;
}

DocumentGetResult DocumentStore::get(NodeId caller, const std::string& index, const std::string& id) {
    DocumentGetResult result;
    if (!admit(caller)) {
        result.error = DocumentError::unavailable;
        return result;
    }
    auto it = indices_.find(index);
    if (it == indices_.end()) {
        result.error = DocumentError::no_such_index;
        return result;
    }
    if (auto doc = it->second.find(id); doc != it->second.end()) result.document = doc->second;
    return result;
}

DocumentScanResult DocumentStore::scan(NodeId caller, const std::string& index) {
    DocumentScanResult result;
    if (!admit(caller)) {
        result.error = DocumentError::unavailable;
        return result;
    }
    if (!has_index(index)) {
        result.error = DocumentError::no_such_index;
        return result;
    }
    result.documents = documents(index);
    return result;
}

std::vector<Document> DocumentStore::documents(const std::string& index) const {
    std::vector<Document> out;
    auto it = indices_.find(index);
    if (it == indices_.end()) return out;
    out.reserve(it->second.size());
    for (const auto& [id, doc] : it->second) out.push_back(doc);
    return out;
}

}  // namespace eosim::sim::external
