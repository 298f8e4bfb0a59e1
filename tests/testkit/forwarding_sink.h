#pragma once
// A sink kind made from another by wrapping each of its instances: the wrapped config answers every
// question as the original does, and `wrap` puts a Sink of the test's own around each instance
// (to watch the calls an instance gets, or to change one thing about what it does). For the tests
// of tests/testkit only.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_registry.h"

namespace eosim::testkit::sink_wrapping {

// Forwards every call to `inner`; a test overrides what it watches or changes.
class ForwardingSink : public engine::Sink {
public:
    explicit ForwardingSink(std::unique_ptr<engine::Sink> inner) : inner_(std::move(inner)) {}
    bool open(int64_t restored_checkpoint_id,
              const std::vector<engine::RestoredSinkState>& restored) override {
        return inner_->open(restored_checkpoint_id, restored);
    }
    void write(const engine::RecordBatch& records) override { inner_->write(records); }
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        return inner_->pre_commit(checkpoint_id, state, error);
    }
    void checkpoint_complete(int64_t checkpoint_id) override {
        inner_->checkpoint_complete(checkpoint_id);
    }
    bool settled() const override { return inner_->settled(); }
    void close() override { inner_->close(); }

private:
    std::unique_ptr<engine::Sink> inner_;
};

// Makes the original kind's instance for a context (the task's, or one of the test's around it).
using MakeInner = std::function<std::unique_ptr<engine::Sink>(engine::SinkContext& context)>;
using SinkWrapper = std::function<std::unique_ptr<engine::Sink>(engine::SinkContext& context,
                                                                const MakeInner& make_inner)>;

class WrappedSinkConfig final : public engine::SinkConfig {
public:
    WrappedSinkConfig(std::shared_ptr<const engine::SinkConfig> inner, SinkWrapper wrap)
        : inner_(std::move(inner)), wrap_(std::move(wrap)) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig& runtime) const override {
        return wrap_(context,
                     [&](engine::SinkContext& c) { return inner_->make(c, systems, runtime); });
    }
    engine::SinkOutputShape output_shape() const override { return inner_->output_shape(); }
    std::vector<engine::Record> read_output(const engine::OutsideSystems& systems) const override {
        return inner_->read_output(systems);
    }
    std::string kafka_topic() const override { return inner_->kafka_topic(); }
    std::vector<std::string> claims() const override { return inner_->claims(); }
    std::vector<std::string_view> announced_points() const override {
        return inner_->announced_points();
    }
    std::string source_identity_option() const override { return inner_->source_identity_option(); }

private:
    std::shared_ptr<const engine::SinkConfig> inner_;
    SinkWrapper wrap_;
};

// A kind named `name` that configures as the registered kind `inner_kind` does, its instances
// wrapped.
inline engine::SinkKind wrapped_kind(const std::string& name, const std::string& inner_kind,
                                     SinkWrapper wrap) {
    return engine::SinkKind{
        name, "a test sink: " + inner_kind + ", wrapped (tests/testkit)",
        [inner_kind, wrap](engine::SinkOptions& options, const std::string& vertex_id,
                           const engine::SinkWorld& world) {
            const engine::SinkKind* inner = engine::SinkRegistry::global().find(inner_kind);
            return std::make_shared<const WrappedSinkConfig>(
                inner->configure(options, vertex_id, world), wrap);
        }};
}

}  // namespace eosim::testkit::sink_wrapping
