#include "engine/connectors/upsert_sink.h"

#include "engine/connectors/builtin_sinks.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/external/database.h"

namespace eosim::engine {

using sim::external::Database;
using sim::external::DatabaseError;
using sim::external::Row;

UpsertSink::UpsertSink(const UpsertSinkOptions& options, SinkContext& context, Database& database)
    : context_(context),
      database_(database),
      table_(options.table),
      guarded_(options.version_guard),
      batch_size_(static_cast<size_t>(std::max(1, options.batch_size))) {}

bool UpsertSink::open(int64_t, const std::vector<RestoredSinkState>&) { return true; }

void UpsertSink::write(const RecordBatch& records) {
    for (const Record& record : records) {
        if (record.kind == RowKind::update_before) continue;
        buffer_[record.key] =
            Change{record.value, record.version, record.kind == RowKind::delete_row};
        if (buffer_.size() < batch_size_) continue;
        if (const std::string error = flush(); !error.empty()) {
            context_.fail(error);
            return;
        }
    }
}

bool UpsertSink::pre_commit(int64_t, std::string*, std::string* error) {
    *error = flush();
    return error->empty();
}

std::string UpsertSink::flush() {
    if (buffer_.empty()) return {};
    const sim::NodeId node = context_.node();
    Database::TransactionId id = 0;
    DatabaseError e = database_.begin(node, &id);
    for (auto it = buffer_.begin(); e == DatabaseError::none && it != buffer_.end(); ++it) {
        const auto& [key, change] = *it;
        if (change.remove && !guarded_) {
            e = database_.remove(node, id, table_, key);
        } else {
            e = database_.upsert(node, id, table_,
                                 Row{key, change.value, change.version, change.remove}, guarded_);
        }
    }
    if (e == DatabaseError::none) e = database_.commit(node, id);
    if (e != DatabaseError::none) {
        database_.rollback(node, id);
        return std::string("upsert sink cannot write table '") + table_ + "': " + to_string(e);
    }
    const auto rows = static_cast<int64_t>(buffer_.size());
    buffer_.clear();
    const sim::Time now = context_.world().now();
    context_.observer().connector_event(
        now, now, "upsert sink-" + std::to_string(context_.subtask()), "sink.batch",
        std::to_string(rows) + " rows into '" + table_ + "'");
    context_.announce(points::kSinkFlushed, rows);
    return {};
}

std::unique_ptr<Sink> UpsertSinkConfig::make(SinkContext& context, const OutsideSystems& systems,
                                             const RuntimeConfig&) const {
    return std::make_unique<UpsertSink>(options_, context,
                                        *systems.database(kUpsertTargetDatabase));
}

std::vector<std::string_view> UpsertSinkConfig::announced_points() const {
    return {points::kSinkFlushed};
}

std::vector<Record> UpsertSinkConfig::read_output(const OutsideSystems& systems) const {
    std::vector<Record> out;
    const sim::external::Database& database = *systems.database(kUpsertTargetDatabase);
    if (!database.has_table(options_.table)) return out;
    for (const auto& [key, row] : database.table_contents(options_.table)) {
        if (!row.deleted) out.push_back(Record{key, row.value});
    }
    return out;
}

const UpsertSinkOptions* upsert_sink_options(const VertexSpec& vertex) {
    if (vertex.kind != OperatorKind::sink) return nullptr;
    const auto* config = dynamic_cast<const UpsertSinkConfig*>(vertex.sink.get());
    return config == nullptr ? nullptr : &config->options();
}

void register_upsert_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "upsert",
        "database table by key (INSERT ... ON DUPLICATE KEY UPDATE, optionally guarded by a version column), "
        "after Flink's JDBC upsert sink",
        [](SinkOptions& options, const std::string&, const SinkWorld&) {
            UpsertSinkOptions o;
            o.table = options.required_string("table");
            o.version_guard = options.boolean("version_guard", true);
            o.batch_size = static_cast<int32_t>(options.integer("batch_size", 64, 1, 1'000'000));
            return std::make_shared<UpsertSinkConfig>(std::move(o));
        },
        [](const nlohmann::json& options) {
            return twin_setting(
                options, "version_guard", true, false, "no_version_guard",
                "no version column guard: a replayed older row overwrites a newer one");
        }});
}

}  // namespace eosim::engine
