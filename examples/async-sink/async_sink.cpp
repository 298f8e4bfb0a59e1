#include "async_sink.h"

#include <deque>

#include "engine/connectors/sink_points.h"

namespace async_sink_example {

using eosim::engine::CallId;
using eosim::engine::Record;
using eosim::sim::external::BulkResponse;
using eosim::sim::external::DocumentError;
using eosim::sim::external::DocumentStore;
using eosim::sim::external::DocumentWrite;

namespace {

struct Entry {
    int64_t key = 0;
    int64_t value = 0;
};

// One document per record, named by its content ("k<key>-v<value>": the job's records are unique
// by key and value): a replayed, a zombie's or a late write rewrites the same document with the
// same fields.
DocumentWrite to_write(const Entry& e) {
    DocumentWrite w;
    w.op = eosim::sim::external::DocumentOp::index;
    w.id = "k" + std::to_string(e.key) + "-v" + std::to_string(e.value);
    w.fields = {{"key", e.key}, {"value", e.value}};
    return w;
}

}  // namespace

class AsyncWriter final : public eosim::engine::Sink {
public:
    AsyncWriter(const AsyncOptions& options, eosim::engine::SinkContext& context,
                DocumentStore& store, SharedInFlight& shared)
        : options_(options), context_(context), store_(store), shared_(shared) {}

    bool open(int64_t, const std::vector<eosim::engine::RestoredSinkState>&) override {
        store_.create_index(options_.index);  // administration: never fails, harmless twice
        if (stale()) shared_.reset(&context_.world(), context_.subtask());
        return true;  // nothing restored: the job replays from the checkpoint, versions absorb the
                      // rest
    }

    void write(const eosim::engine::RecordBatch& records) override {
        for (const Record& r : records) buffer_.push_back(Entry{r.key, r.value});
        send_batches(false);
    }

    // Flink's flush(true): everything buffered goes out; ready when nothing is buffered or in
    // flight.
    bool prepare_pre_commit(int64_t) override {
        send_batches(true);
        if (options_.slip == AsyncSlip::no_wait) return true;
        return flushed();
    }

    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        if (options_.slip != AsyncSlip::no_wait && !flushed()) {
            *error = std::to_string(buffer_.size()) + " entries buffered, " +
                     std::to_string(in_flight_.size()) + " requests in flight";
            return false;
        }
        state->clear();
        eosim::engine::announce_point(context_, eosim::engine::sink_points::kPrecommitted,
                                      checkpoint_id);
        return true;
    }

    // Every record before the checkpoint's barrier is in the store (the flush saw to it):
    // committed.
    void checkpoint_complete(int64_t checkpoint_id) override {
        eosim::engine::announce_point(context_, eosim::engine::sink_points::kCommitted,
                                      checkpoint_id);
    }
    bool settled() const override { return true; }
    void close() override { closed_ = true; }

private:
    bool stale() const { return options_.slip == AsyncSlip::stale_completion; }
    // Nothing buffered, nothing in flight (the slip: in flight as the shared counter says).
    bool flushed() const {
        if (!buffer_.empty()) return false;
        return stale() ? shared_.count(&context_.world(), context_.subtask()) <= 0
                       : in_flight_.empty();
    }

    // The answer of this writer's request `id`: failed entries go back to the front of the buffer.
    void complete(CallId id, const BulkResponse& response) {
        if (stale()) shared_.add(&context_.world(), context_.subtask(), -1);
        auto it = in_flight_.find(id);
        const std::vector<Entry> sent = std::move(it->second);
        in_flight_.erase(it);
        std::vector<Entry> failed;
        for (size_t i = 0; i < sent.size(); ++i) {
            const DocumentError error =
                response.error != DocumentError::none ? response.error : response.items[i].error;
            if (error != DocumentError::none) failed.push_back(sent[i]);
        }
        if (failed.size() < sent.size()) {
            eosim::engine::announce_point(context_, eosim::engine::sink_points::kFlushed,
                                          static_cast<int64_t>(sent.size() - failed.size()));
        }
        if (options_.slip != AsyncSlip::drop_failed)
            buffer_.insert(buffer_.begin(), failed.begin(), failed.end());  // at the front
        send_batches(false);
    }

    // Sends batches while requests may be added: full ones only, or (flushing) whatever is
    // buffered.
    void send_batches(bool flushing) {
        const auto batch = static_cast<size_t>(options_.max_batch_size);
        while (!closed_ && !buffer_.empty() &&
               in_flight_.size() < static_cast<size_t>(options_.max_in_flight) &&
               (flushing || buffer_.size() >= batch)) {
            std::vector<Entry> entries(
                buffer_.begin(),
                buffer_.begin() + static_cast<std::ptrdiff_t>(std::min(batch, buffer_.size())));
            buffer_.erase(buffer_.begin(),
                          buffer_.begin() + static_cast<std::ptrdiff_t>(entries.size()));
            send(std::move(entries));
        }
    }

    void send(std::vector<Entry> entries) {
        std::vector<DocumentWrite> writes;
        for (const Entry& e : entries) writes.push_back(to_write(e));
        DocumentStore* store = &store_;
        const std::string index = options_.index;
        const CallId id = context_.call<BulkResponse>(
            store_,
            [store, index, writes](eosim::sim::NodeId caller) {
                return store->bulk(caller, index, writes);
            },
            [this](CallId answered, const BulkResponse& response) {
                complete(answered, response);
            });
        in_flight_.emplace(id, std::move(entries));
        if (stale()) shared_.add(&context_.world(), context_.subtask(), 1);
    }

    const AsyncOptions& options_;
    eosim::engine::SinkContext& context_;
    DocumentStore& store_;
    SharedInFlight& shared_;
    std::deque<Entry> buffer_;
    std::map<CallId, std::vector<Entry>> in_flight_;  // request -> its entries, in request order
    bool closed_ = false;
};

void SharedInFlight::reset(const void* world, int32_t subtask) {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_[{world, subtask}] = 0;
}

void SharedInFlight::add(const void* world, int32_t subtask, int64_t delta) {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_[{world, subtask}] += delta;
}

int64_t SharedInFlight::count(const void* world, int32_t subtask) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = counts_.find({world, subtask});
    return it == counts_.end() ? 0 : it->second;
}

std::unique_ptr<eosim::engine::Sink> AsyncConfig::make(eosim::engine::SinkContext& context,
                                                       const eosim::engine::OutsideSystems& systems,
                                                       const eosim::engine::RuntimeConfig&) const {
    return std::make_unique<AsyncWriter>(options_, context, *systems.documents, shared_in_flight_);
}

std::vector<Record> AsyncConfig::read_output(const eosim::engine::OutsideSystems& systems) const {
    std::vector<Record> out;
    for (const auto& document : systems.documents->documents(options_.index)) {
        out.push_back(Record{document.fields.at("key"), document.fields.at("value")});
    }
    return out;
}

eosim::engine::SinkKind async_kind(const std::string& name, AsyncSlip slip) {
    return eosim::engine::SinkKind{
        name,
        "an AsyncSinkWriter-style bulk writer into the document store, at-least-once, idempotent by document id (example)",
        [slip](eosim::engine::SinkOptions& options, const std::string&,
               const eosim::engine::SinkWorld& world) {
            if (!world.has_system("documents"))
                options.fail("index", "a world with the document store \"documents\"");
            AsyncOptions o;
            o.index = options.string("index", "async");
            o.max_batch_size = static_cast<int32_t>(options.integer("max_batch_size", 3, 1, 1000));
            o.max_in_flight = static_cast<int32_t>(options.integer("max_in_flight", 2, 1, 1000));
            o.slip = slip;
            return std::make_shared<AsyncConfig>(std::move(o));
        }};
}

}  // namespace async_sink_example
