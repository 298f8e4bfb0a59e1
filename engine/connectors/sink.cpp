#include "engine/connectors/sink.h"

#include "engine/connectors/kafka_sink.h"
#include "engine/connectors/upsert_sink.h"
#include "sim/external/append_store.h"

namespace eosim::engine {

namespace {

// The unprotected negative control: every record appended at once, nothing in the checkpoint.
class AppendSink final : public Sink {
public:
    AppendSink(SinkContext& context, sim::external::AppendStore& store) : context_(context), store_(store) {}
    bool open(int64_t, const std::string&) override { return true; }
    void write(const RecordBatch& records) override {
        for (const Record& record : records) {
            if (store_.append(context_.node(), sim::external::KafkaRecord{record.key, record.value}) !=
                sim::external::AppendStoreError::none) {
                context_.fail("append store write failed");
                return;
            }
        }
    }
    bool pre_commit(int64_t, std::string*, std::string*) override { return true; }
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

private:
    SinkContext& context_;
    sim::external::AppendStore& store_;
};

}  // namespace

std::unique_ptr<Sink> make_sink(const VertexSpec& vertex, SinkContext& context, const SinkServices& services,
                                const RuntimeConfig& runtime) {
    if (vertex.kind == OperatorKind::append_sink) return std::make_unique<AppendSink>(context, *services.append_store);
    if (vertex.kind == OperatorKind::upsert_sink) return std::make_unique<UpsertSink>(vertex, context, *services.database);
    return std::make_unique<KafkaSink>(vertex, context, *services.kafka, runtime);
}

}  // namespace eosim::engine
