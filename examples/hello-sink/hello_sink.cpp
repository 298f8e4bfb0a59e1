#include "hello_sink.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <eosim/sim/external/append_store.h>

namespace hello {

using eosim::engine::OutsideSystems;
using eosim::engine::Record;
using eosim::engine::RecordBatch;

namespace {

class HelloUpsertSink final : public eosim::engine::Sink {
public:
    HelloUpsertSink(eosim::engine::SinkContext& context, eosim::sim::external::AppendStore& store)
        : context_(context), store_(store) {}
    bool open(int64_t, const std::vector<eosim::engine::RestoredSinkState>&) override {
        return true;
    }
    void write(const RecordBatch& records) override {
        for (const Record& record : records) {
            if (store_.append(context_.node(), {record.key, record.value}) !=
                eosim::sim::external::AppendStoreError::none) {
                context_.fail("hello_upsert: the store refused a write");
                return;
            }
        }
    }
    bool pre_commit(int64_t, std::string*, std::string*) override { return true; }
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

private:
    eosim::engine::SinkContext& context_;
    eosim::sim::external::AppendStore& store_;
};

class HelloUpsertConfig final : public eosim::engine::SinkConfig {
public:
    std::unique_ptr<eosim::engine::Sink> make(eosim::engine::SinkContext& context,
                                              const OutsideSystems& systems,
                                              const eosim::engine::RuntimeConfig&) const override {
        return std::make_unique<HelloUpsertSink>(context, *systems.append_store);
    }
    eosim::engine::SinkOutputShape output_shape() const override {
        return eosim::engine::SinkOutputShape::keyed_table;
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        std::vector<Record> appended;
        for (const auto& r : systems.append_store->records())
            appended.push_back(Record{r.key, r.value});
        return latest_per_key(appended);
    }
};

}  // namespace

std::vector<Record> latest_per_key(const std::vector<Record>& appended) {
    std::map<int64_t, int64_t> latest;
    for (const Record& r : appended) latest[r.key] = r.value;
    std::vector<Record> out;
    for (const auto& [key, value] : latest) out.push_back(Record{key, value});
    return out;
}

eosim::engine::SinkKind hello_upsert_kind() {
    return {
        "hello_upsert",
        "upserts every record at once into the append store; the table keeps the last value per key",
        [](eosim::engine::SinkOptions& options, const std::string&,
           const eosim::engine::SinkWorld&) {
            options.finish();
            return std::make_shared<HelloUpsertConfig>();
        }};
}

}  // namespace hello

EOSIM_REGISTER_SINK(hello::hello_upsert_kind());
