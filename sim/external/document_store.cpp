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
        case DocumentError::timeout: return "timeout";
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

DocumentWriteResult DocumentStore::apply_with_id(Index& index, const std::string& id,
                                                 const DocumentWrite& write) {
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

namespace {

const char* op_text(DocumentOp op) {
    switch (op) {
        case DocumentOp::create: return "create";
        case DocumentOp::index: return "index";
        case DocumentOp::update: return "update";
    }
    return "?";
}

std::string write_text(const DocumentWrite& w) {
    std::string out =
        std::string(op_text(w.op)) + " " + (w.id ? "id " + *w.id : std::string("(id generated)"));
    if (w.version_type == VersionType::external)
        out += " version " + std::to_string(w.version) + " external";
    out += " {";
    bool first = true;
    for (const auto& [field, value] : w.fields) {
        out += (first ? "" : ", ") + field + ": " + std::to_string(value);
        first = false;
    }
    return out + "}";
}

std::string item_answer(const DocumentWriteResult& r) {
    if (r.error == DocumentError::timeout)
        return "timeout (no answer: it may have applied, or may still land)";
    if (r.error != DocumentError::none)
        return to_string(r.error) + (r.id.empty() ? std::string() : " (id " + r.id + ")");
    const char* outcome = r.outcome == WriteOutcome::created   ? "created"
                          : r.outcome == WriteOutcome::updated ? "updated"
                                                               : "noop";
    return std::string(outcome) + " id " + r.id + " version " + std::to_string(r.version);
}

}  // namespace

DocumentWriteResult DocumentStore::write(NodeId caller, const std::string& index,
                                         const DocumentWrite& write) {
    DocumentWriteResult result;
    bool unreachable = false;
    const auto call = [&] { return "write to " + index + ": " + write_text(write); };
    if (!admit_write(caller, &unreachable)) {
        result.error = unreachable ? DocumentError::unavailable : DocumentError::write_failed;
    } else {
        DocumentWriteResult timed_out;
        timed_out.error = DocumentError::timeout;
        // indices are created on first write, as by default
        result = deliver_write<DocumentWriteResult>(
            caller, call, [this, index, write] { return apply(indices_[index], write); },
            timed_out);
    }
    races().note(caller, call, [&] { return item_answer(result); });
    return result;
}

BulkResponse DocumentStore::bulk(NodeId caller, const std::string& index,
                                 const std::vector<DocumentWrite>& writes) {
    BulkResponse response;
    bool unreachable = false;
    const auto call = [&] {
        std::string out = "bulk to " + index + ":";
        for (const DocumentWrite& w : writes) out += " [" + write_text(w) + "]";
        return out;
    };
    if (!admit_write(caller, &unreachable)) {
        response.error = unreachable ? DocumentError::unavailable : DocumentError::write_failed;
    } else {
        BulkResponse timed_out;
        timed_out.error = DocumentError::timeout;
        response = deliver_write<BulkResponse>(
            caller, call, [this, index, writes] { return apply_bulk(index, writes); }, timed_out);
    }
    races().note(caller, call, [&] {
        if (response.error != DocumentError::none)
            return item_answer(DocumentWriteResult{response.error, {}, 0, WriteOutcome::noop});
        std::string out;
        for (const DocumentWriteResult& item : response.items)
            out += (out.empty() ? "[" : " [") + item_answer(item) + "]";
        return out;
    });
    return response;
}

BulkResponse DocumentStore::apply_bulk(const std::string& index,
                                       const std::vector<DocumentWrite>& writes) {
    BulkResponse response;
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

DocumentGetResult DocumentStore::get(NodeId caller, const std::string& index,
                                     const std::string& id) {
    DocumentGetResult result;
    if (!admit(caller)) {
        result.error = DocumentError::unavailable;
    } else if (auto it = indices_.find(index); it == indices_.end()) {
        result.error = DocumentError::no_such_index;
    } else if (auto doc = it->second.find(id); doc != it->second.end()) {
        result.document = doc->second;
    }
    races().note(
        caller, [&] { return "get " + index + " id " + id; },
        [&] {
            if (result.error != DocumentError::none) return std::string(to_string(result.error));
            return result.document ? "version " + std::to_string(result.document->version)
                                   : std::string("not found");
        });
    return result;
}

DocumentScanResult DocumentStore::scan(NodeId caller, const std::string& index) {
    DocumentScanResult result;
    if (!admit(caller)) {
        result.error = DocumentError::unavailable;
    } else if (!has_index(index)) {
        result.error = DocumentError::no_such_index;
    } else {
        result.documents = documents(index);
    }
    races().note(
        caller, [&] { return "scan " + index; },
        [&] {
            if (result.error != DocumentError::none) return std::string(to_string(result.error));
            return std::to_string(result.documents.size()) + " document(s)";
        });
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
