// The "append" sink kind: the unprotected negative control. Every record is appended to the append
// store at once and nothing goes into the checkpoint, so a replay after a recovery appends again:
// an at-least-once job must show duplicates here. Options: none.
#include "engine/connectors/builtin_sinks.h"
#include "sim/external/append_store.h"

namespace eosim::engine {

namespace {

class AppendSink final : public Sink {
public:
    AppendSink(SinkContext& context, sim::external::AppendStore& store)
        : context_(context), store_(store) {}
    bool open(int64_t, const std::vector<RestoredSinkState>&) override { return true; }
    void write(const RecordBatch& records) override {
        for (const Record& record : records) {
            if (store_.append(context_.node(),
                              sim::external::KafkaRecord{record.key, record.value}) !=
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

class AppendSinkConfig final : public SinkConfig {
public:
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig&) const override {
        return std::make_unique<AppendSink>(context, *systems.append_store);
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        std::vector<Record> out;
        out.reserve(systems.append_store->records().size());
        for (const auto& r : systems.append_store->records()) out.push_back(Record{r.key, r.value});
        return out;
    }
};

}  // namespace

void register_append_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "append",
        "appends every record to an unprotected store at once (no checkpoint part): duplicates on replay",
        [](SinkOptions&, const std::string&, const SinkWorld&) {
            return std::make_shared<AppendSinkConfig>();
        }});
}

}  // namespace eosim::engine
