#include "engine/connectors/process/process_calls.h"

#include <functional>
#include <map>
#include <optional>

#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/kafka.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"

namespace eosim::engine::process {

namespace {

namespace external = sim::external;
using nlohmann::json;

// A call's arguments, read with the error a sink author needs.
class Args {
public:
    explicit Args(const json& call) : call_(call) {}
    const json& get(const char* key, json::value_t type, const char* expected) const {
        const auto it = call_.find(key);
        if (it == call_.end() || (it->type() != type && !(type == json::value_t::number_integer &&
                                                          it->is_number_unsigned()))) {
            throw BadCall(std::string("expected \"") + key + "\": " + expected + " in the call");
        }
        return *it;
    }
    std::string text(const char* key) const {
        return get(key, json::value_t::string, "a string").get<std::string>();
    }
    int64_t integer(const char* key) const {
        return get(key, json::value_t::number_integer, "an integer").get<int64_t>();
    }
    std::optional<int64_t> optional_integer(const char* key) const {
        if (!call_.contains(key) || call_[key].is_null()) return std::nullopt;
        return integer(key);
    }
    std::optional<sim::Duration> optional_ms(const char* key) const {
        const auto ms = optional_integer(key);
        return ms ? std::optional(sim::Duration::millis(*ms)) : std::nullopt;
    }
    bool flag(const char* key) const {
        return call_.contains(key) && get(key, json::value_t::boolean, "true or false").get<bool>();
    }
    const json& array(const char* key) const { return get(key, json::value_t::array, "an array"); }
    const json& object(const char* key) const {
        return get(key, json::value_t::object, "an object");
    }

private:
    const json& call_;
};

template <typename Error>
json result(Error error) {
    if (error == Error::none) return {{"type", "result"}, {"ok", true}};
    return {{"type", "result"}, {"ok", false}, {"error", external::to_string(error)}};
}

template <typename System>
using Ops = std::map<std::string, std::function<json(System&, sim::NodeId, const Args&)>>;

template <typename System>
json dispatch(const Ops<System>& ops, System* system, const char* name, sim::NodeId caller,
              const json& call) {
    if (system == nullptr)
        throw BadCall(std::string("a call to ") + name +
                      ", which this scenario's world does not have");
    const Args args(call);
    const std::string op = args.text("op");
    const auto it = ops.find(op);
    if (it == ops.end()) {
        std::string known;
        for (const auto& [key, handler] : ops) known += (known.empty() ? "" : ", ") + key;
        throw BadCall(std::string("unknown op \"") + op + "\" of " + name + " (expected one of " +
                      known + ")");
    }
    return it->second(*system, caller, args);
}

// ---- key_values ----

json kv(const external::KeyValueResult& r) {
    json out = result(r.error);
    if (r.error == external::KeyValueError::none) {
        out["value"] = r.value ? json(*r.value) : json(nullptr);
        out["applied"] = r.applied;
    }
    return out;
}

const Ops<external::KeyValueStore>& key_value_ops() {
    using S = external::KeyValueStore;
    static const Ops<S> ops = {
        {"get", [](S& s, sim::NodeId c, const Args& a) { return kv(s.get(c, a.text("key"))); }},
        {"set",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.set(c, a.text("key"), a.integer("value"), a.optional_ms("ttl_ms")));
         }},
        {"setnx",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.setnx(c, a.text("key"), a.integer("value"), a.optional_ms("ttl_ms")));
         }},
        {"incrby",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.incrby(c, a.text("key"), a.integer("delta")));
         }},
        {"del", [](S& s, sim::NodeId c, const Args& a) { return kv(s.del(c, a.text("key"))); }},
        {"expire",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.expire(c, a.text("key"), sim::Duration::millis(a.integer("ttl_ms"))));
         }},
        {"set_if_absent_then_incrby",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.set_if_absent_then_incrby(c, a.text("dedup_key"), a.text("counter_key"),
                                                   a.integer("delta"),
                                                   a.optional_ms("dedup_ttl_ms")));
         }},
        {"compare_and_set",
         [](S& s, sim::NodeId c, const Args& a) {
             return kv(s.compare_and_set(c, a.text("key"), a.optional_integer("expected"),
                                         a.integer("value")));
         }},
    };
    return ops;
}

// ---- documents ----

external::DocumentWrite document_write(const json& item) {
    const Args a(item);
    external::DocumentWrite w;
    const std::string op = item.contains("op") ? a.text("op") : "index";
    if (op != "create" && op != "index" && op != "update")
        throw BadCall("expected \"op\": create, index or update in a document write");
    w.op = op == "create"  ? external::DocumentOp::create
           : op == "index" ? external::DocumentOp::index
                           : external::DocumentOp::update;
    if (item.contains("id") && !item["id"].is_null()) w.id = a.text("id");
    for (const auto& [field, value] : a.object("fields").items()) {
        if (!value.is_number_integer())
            throw BadCall("expected integer values in \"fields\" (field \"" + field + "\")");
        w.fields[field] = value.get<int64_t>();
    }
    if (item.contains("version")) {
        w.version_type = external::VersionType::external;
        w.version = a.integer("version");
    }
    return w;
}

const char* outcome_name(external::WriteOutcome outcome) {
    switch (outcome) {
        case external::WriteOutcome::created: return "created";
        case external::WriteOutcome::updated: return "updated";
        case external::WriteOutcome::noop: return "noop";
    }
    return "noop";
}

json document_result(const external::DocumentWriteResult& r) {
    json out = result(r.error);
    if (r.error == external::DocumentError::none) {
        out["id"] = r.id;
        out["version"] = r.version;
        out["outcome"] = outcome_name(r.outcome);
    }
    out.erase("type");
    return out;
}

json document_json(const external::Document& d) {
    return {{"id", d.id}, {"version", d.version}, {"fields", d.fields}};
}

const Ops<external::DocumentStore>& document_ops() {
    using S = external::DocumentStore;
    static const Ops<S> ops = {
        {"create_index",
         [](S& s, sim::NodeId, const Args& a) {
             s.create_index(a.text("index"));
             return result(external::DocumentError::none);
         }},
        {"write",
         [](S& s, sim::NodeId c, const Args& a) {
             json out =
                 document_result(s.write(c, a.text("index"), document_write(a.object("document"))));
             out["type"] = "result";
             return out;
         }},
        {"bulk",
         [](S& s, sim::NodeId c, const Args& a) {
             std::vector<external::DocumentWrite> writes;
             for (const json& item : a.array("items")) writes.push_back(document_write(item));
             const external::BulkResponse r = s.bulk(c, a.text("index"), writes);
             json out = result(r.error);
             out["items"] = json::array();
             for (const auto& item : r.items) out["items"].push_back(document_result(item));
             return out;
         }},
        {"get",
         [](S& s, sim::NodeId c, const Args& a) {
             const external::DocumentGetResult r = s.get(c, a.text("index"), a.text("id"));
             json out = result(r.error);
             if (r.error == external::DocumentError::none)
                 out["document"] = r.document ? document_json(*r.document) : json(nullptr);
             return out;
         }},
        {"scan",
         [](S& s, sim::NodeId c, const Args& a) {
             const external::DocumentScanResult r = s.scan(c, a.text("index"));
             json out = result(r.error);
             if (r.error == external::DocumentError::none) {
                 out["documents"] = json::array();
                 for (const auto& d : r.documents) out["documents"].push_back(document_json(d));
             }
             return out;
         }},
    };
    return ops;
}

// ---- kafka ----

json producer_json(const external::ProducerHandle& p) {
    return {{"transactional_id", p.transactional_id},
            {"producer_id", p.producer_id},
            {"epoch", p.epoch}};
}

external::ProducerHandle producer_of(const Args& a) {
    const json& p = a.object("producer");
    const Args pa(p);
    return {pa.text("transactional_id"), pa.integer("producer_id"),
            static_cast<int32_t>(pa.integer("epoch"))};
}

external::KafkaRecord kafka_record(const Args& a) {
    return {a.integer("key"), a.integer("value"), a.optional_integer("timestamp").value_or(0)};
}

const Ops<external::KafkaCluster>& kafka_ops() {
    using S = external::KafkaCluster;
    static const Ops<S> ops = {
        {"partitions",
         [](S& s, sim::NodeId, const Args& a) {
             json out = result(external::KafkaError::none);
             out["partitions"] = s.partitions(a.text("topic"));
             return out;
         }},
        {"append",
         [](S& s, sim::NodeId c, const Args& a) {
             int64_t offset = -1;
             json out =
                 result(s.append(c, a.text("topic"), static_cast<int32_t>(a.integer("partition")),
                                 kafka_record(a), &offset));
             if (out["ok"]) out["offset"] = offset;
             return out;
         }},
        {"init_transactions",
         [](S& s, sim::NodeId c, const Args& a) {
             external::ProducerHandle handle;
             json out = result(s.init_transactions(c, a.text("transactional_id"), &handle));
             if (out["ok"]) out["producer"] = producer_json(handle);
             return out;
         }},
        {"list_transactions",
         [](S& s, sim::NodeId c, const Args& a) {
             std::vector<std::string> ongoing;
             json out = result(s.list_transactions(c, a.text("prefix"), &ongoing));
             if (out["ok"]) out["ongoing"] = ongoing;
             return out;
         }},
        {"begin",
         [](S& s, sim::NodeId c, const Args& a) { return result(s.begin(c, producer_of(a))); }},
        {"send",
         [](S& s, sim::NodeId c, const Args& a) {
             return result(s.send(c, producer_of(a), a.text("topic"),
                                  static_cast<int32_t>(a.integer("partition")), kafka_record(a)));
         }},
        {"commit",
         [](S& s, sim::NodeId c, const Args& a) { return result(s.commit(c, producer_of(a))); }},
        {"abort",
         [](S& s, sim::NodeId c, const Args& a) {
             external::ProducerHandle bumped;
             json out = result(s.abort(c, producer_of(a), &bumped));
             if (bumped.producer_id >= 0) out["bumped"] = producer_json(bumped);
             return out;
         }},
    };
    return ops;
}

// ---- objects ----

json object_result(const external::ObjectResult& r, const char* field) {
    json out = result(r.error);
    if (r.error != external::ObjectError::none || field == nullptr) return out;
    const std::string name = field;
    if (name == "bytes") out["bytes"] = r.bytes;
    if (name == "upload_id") out["upload_id"] = r.upload_id;
    if (name == "objects") {
        out["objects"] = json::array();
        for (const auto& o : r.objects)
            out["objects"].push_back({{"path", o.path}, {"size", o.size}});
    }
    return out;
}

const Ops<external::ObjectStore>& object_ops() {
    using S = external::ObjectStore;
    static const Ops<S> ops = {
        {"put",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.put(c, a.text("path"), a.text("bytes")), nullptr);
         }},
        {"get", [](S& s, sim::NodeId c,
                   const Args& a) { return object_result(s.get(c, a.text("path")), "bytes"); }},
        {"list",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.list(c, a.text("prefix")), "objects");
         }},
        {"remove",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.remove(c, a.text("path")), nullptr);
         }},
        {"rename",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.rename(c, a.text("from"), a.text("to")), nullptr);
         }},
        {"copy",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.copy(c, a.text("from"), a.text("to")), nullptr);
         }},
        {"initiate_upload",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.initiate_upload(c, a.text("path")), "upload_id");
         }},
        {"upload_part",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(
                 s.upload_part(c, a.integer("upload_id"),
                               static_cast<int32_t>(a.integer("part_number")), a.text("bytes")),
                 nullptr);
         }},
        {"complete_upload",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.complete_upload(c, a.integer("upload_id")), nullptr);
         }},
        {"abort_upload",
         [](S& s, sim::NodeId c, const Args& a) {
             return object_result(s.abort_upload(c, a.integer("upload_id")), nullptr);
         }},
    };
    return ops;
}

// ---- database ----

json row_json(const external::Row& r) {
    return {{"key", r.key}, {"value", r.value}, {"version", r.version}};
}

const char* statement_name(external::StatementResult r) {
    switch (r) {
        case external::StatementResult::inserted: return "inserted";
        case external::StatementResult::updated: return "updated";
        case external::StatementResult::unchanged: return "unchanged";
        case external::StatementResult::deleted: return "deleted";
        case external::StatementResult::absent: return "absent";
    }
    return "unchanged";
}

const Ops<external::Database>& database_ops() {
    using S = external::Database;
    static const Ops<S> ops = {
        {"create_table",
         [](S& s, sim::NodeId, const Args& a) { return result(s.create_table(a.text("table"))); }},
        {"begin",
         [](S& s, sim::NodeId c, const Args&) {
             S::TransactionId id = -1;
             json out = result(s.begin(c, &id));
             if (out["ok"]) out["transaction"] = id;
             return out;
         }},
        {"upsert",
         [](S& s, sim::NodeId c, const Args& a) {
             const Args row(a.object("row"));
             const external::Row r{row.integer("key"), row.integer("value"),
                                   row.optional_integer("version").value_or(0), false};
             return result(
                 s.upsert(c, a.integer("transaction"), a.text("table"), r, a.flag("guarded")));
         }},
        {"remove",
         [](S& s, sim::NodeId c, const Args& a) {
             return result(
                 s.remove(c, a.integer("transaction"), a.text("table"), a.integer("key")));
         }},
        {"commit",
         [](S& s, sim::NodeId c, const Args& a) {
             std::vector<external::StatementResult> results;
             json out = result(s.commit(c, a.integer("transaction"), &results));
             if (!out["ok"]) return out;
             out["statements"] = json::array();
             for (auto r : results) out["statements"].push_back(statement_name(r));
             return out;
         }},
        {"rollback", [](S& s, sim::NodeId c,
                        const Args& a) { return result(s.rollback(c, a.integer("transaction"))); }},
        {"read",
         [](S& s, sim::NodeId c, const Args& a) {
             std::optional<external::Row> row;
             json out = result(s.read(c, a.text("table"), a.integer("key"), &row));
             if (out["ok"]) out["row"] = row && !row->deleted ? row_json(*row) : json(nullptr);
             return out;
         }},
        {"scan",
         [](S& s, sim::NodeId c, const Args& a) {
             std::vector<external::Row> rows;
             json out = result(s.scan(c, a.text("table"), &rows));
             if (!out["ok"]) return out;
             out["rows"] = json::array();
             for (const auto& r : rows) {
                 if (!r.deleted) out["rows"].push_back(row_json(r));
             }
             return out;
         }},
    };
    return ops;
}

}  // namespace

const std::vector<std::string>& call_systems() {
    static const std::vector<std::string> systems = {"kafka", "key_values", "documents", "objects",
                                                     "database"};
    return systems;
}

json answer_call(const json& call, const OutsideSystems& systems, sim::NodeId caller) {
    const std::string system = Args(call).text("system");
    if (system == "key_values")
        return dispatch(key_value_ops(), systems.key_values, "key_values", caller, call);
    if (system == "documents")
        return dispatch(document_ops(), systems.documents, "documents", caller, call);
    if (system == "kafka") return dispatch(kafka_ops(), systems.kafka, "kafka", caller, call);
    if (system == "objects")
        return dispatch(object_ops(), systems.objects, "objects", caller, call);
    if (system == "database")
        return dispatch(database_ops(), systems.database(kSinkDatabase), "database", caller, call);
    throw BadCall("unknown system \"" + system +
                  "\" (expected one of kafka, key_values, documents, objects, database)");
}

}  // namespace eosim::engine::process
