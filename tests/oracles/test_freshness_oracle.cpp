// The freshness oracle (oracles/freshness_oracle.h) in whole runs of the engine: it passes for the
// real Kafka sink without faults and through a crash right after a pre-commit; it catches a
// deliberately broken sink (here, never in the product) that does not abort lingering
// transactions on restore (FLINK-23854), while every other oracle stays green; and it fires for a
// real configuration whose checkpoint interval is far above the bound.
#include <catch2/catch.hpp>

#include <string>

#include "engine/connectors/kafka_sink.h"
#include "engine/state/blob_codec.h"
#include "engine/vocabulary/protocol_points.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using sim::external::KafkaError;
using sim::external::ProducerHandle;
using namespace eosim::engine::test;

// FLINK-23854 on purpose: a two-phase-commit Kafka sink that commits what it restores but never
// aborts lingering transactions, and whose transactional ids carry the incarnation of the sink
// (so that a new attempt never reuses, and so never fences, an id its predecessor left open).
class NoLingeringAbortSink final : public Sink {
public:
    NoLingeringAbortSink(SinkContext& context, sim::external::KafkaCluster& kafka,
                         int64_t incarnation)
        : context_(context), kafka_(kafka), incarnation_(incarnation) {}

    bool open(int64_t, const std::vector<RestoredSinkState>& restored) override {
        for (const RestoredSinkState& from : restored) {
            BlobReader in(from.state);
            while (!in.done()) {
                const int64_t checkpoint_id = in.get_i64();
                ProducerHandle p;
                p.transactional_id = in.get_string();
                p.producer_id = in.get_i64();
                p.epoch = static_cast<int32_t>(in.get_i64());
                pending_.emplace_back(checkpoint_id, p);
            }
        }
        for (const auto& [checkpoint_id, p] : pending_) kafka_.commit(context_.node(), p);
        pending_.clear();
        return begin(0);
    }
    void write(const RecordBatch& records) override {
        std::vector<std::pair<int32_t, sim::external::KafkaRecord>> out;
        for (const Record& r : records)
            out.emplace_back(static_cast<int32_t>(((r.key % 2) + 2) % 2),
                             sim::external::KafkaRecord{r.key, r.value});
        if (kafka_.send_batch(context_.node(), current_, "output", out) != KafkaError::none)
            failed_ = true;
    }
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        if (failed_) {
            *error = "a write failed";
            return false;
        }
        pending_.emplace_back(checkpoint_id, current_);
        BlobWriter out;
        for (const auto& [id, p] : pending_) {
            out.put_i64(id);
            out.put_string(p.transactional_id);
            out.put_i64(p.producer_id);
            out.put_i64(p.epoch);
        }
        *state = out.take();
        context_.observer().transaction_event(context_.world().now(), current_.transactional_id,
                                              "precommitted");
        context_.world().announce(points::kSinkPrecommitted, context_.node(), checkpoint_id);
        return begin(checkpoint_id + 1);
    }
    void checkpoint_complete(int64_t checkpoint_id) override {
        while (!pending_.empty() && pending_.front().first <= checkpoint_id) {
            if (kafka_.commit(context_.node(), pending_.front().second) != KafkaError::none) return;
            context_.observer().transaction_event(
                context_.world().now(), pending_.front().second.transactional_id, "committed");
            pending_.erase(pending_.begin());
        }
    }
    bool settled() const override { return pending_.empty(); }
    void close() override { kafka_.abort(context_.node(), current_); }

private:
    bool begin(int64_t checkpoint_id) {
        const std::string id = "broken-" + std::to_string(context_.subtask()) + "-" +
                               std::to_string(incarnation_) + "-" + std::to_string(checkpoint_id);
        if (kafka_.init_transactions(context_.node(), id, &current_) != KafkaError::none ||
            kafka_.begin(context_.node(), current_) != KafkaError::none) {
            context_.fail("cannot begin " + id);
            return false;
        }
        return true;
    }

    SinkContext& context_;
    sim::external::KafkaCluster& kafka_;
    int64_t incarnation_;
    ProducerHandle current_;
    std::vector<std::pair<int64_t, ProducerHandle>> pending_;
    bool failed_ = false;
};

class NoLingeringAbortSinkConfig final : public SinkConfig {
public:
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig&) const override {
        return std::make_unique<NoLingeringAbortSink>(context, *systems.kafka, ++incarnations_);
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        std::vector<Record> out;
        for (const auto& r : systems.kafka->committed_records("output"))
            out.push_back(Record{r.key, r.value});
        return out;
    }
    std::string kafka_topic() const override { return "output"; }
    std::vector<std::string_view> announced_points() const override {
        return {points::kSinkPrecommitted};
    }

private:
    mutable int64_t incarnations_ = 0;
};

scenarios::Scenario fresh_count_scenario() {
    auto s = count_scenario(3000, 2);
    s.oracles.push_back("freshness");
    return s;
}

TEST_CASE("freshness: the Kafka sink commits within the bound, without faults and through a crash",
          "[freshness]") {
    auto s = fresh_count_scenario();
    const auto clean = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(clean));
    CHECK(clean.expectation_met);
    CHECK(verdict(clean, "freshness").passed);
    s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), 3, Duration::millis(700))};
    const auto crashed = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(crashed));
    CHECK(crashed.figures.restarts >= 1);
    CHECK(crashed.expectation_met);
    CHECK(verdict(crashed, "freshness").passed);
}

TEST_CASE(
    "freshness: catches a sink that does not abort lingering transactions on restore (FLINK-23854)",
    "[freshness]") {
    auto s = fresh_count_scenario();
    s.job.vertices.back().sink = std::make_shared<NoLingeringAbortSinkConfig>();
    s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), 3, Duration::millis(700))};
    const auto result = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(result));
    CHECK(result.job_finished);
    CHECK(result.figures.restarts >= 1);
    const auto& fresh = verdict(result, "freshness");
    CHECK_FALSE(fresh.passed);
    CHECK(fresh.message.find("blocked by") != std::string::npos);
    CHECK(fresh.message.find("broken-") != std::string::npos);
    CHECK(fresh.message.find("output/") != std::string::npos);
    // Nothing a reader is handed is wrong: only the consumer's wait shows the bug.
    CHECK(verdict(result, "exactly_once_output").passed);
    CHECK(verdict(result, "visibility").passed);
    // The same broken sink without a restore leaves nothing lingering: the oracle passes.
    s.faults.clear();
    const auto clean = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(clean));
    CHECK(verdict(clean, "freshness").passed);
}

TEST_CASE("freshness: a checkpoint interval far above the bound keeps consumers waiting",
          "[freshness]") {
    auto s = fresh_count_scenario();
    s.job.checkpointing.interval = Duration::seconds(4);
    s.freshness_bound = Duration::seconds(1);
    const auto result = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(result));
    const auto& fresh = verdict(result, "freshness");
    CHECK_FALSE(fresh.passed);
    CHECK(fresh.message.find("checkpoint interval") != std::string::npos);
    CHECK(verdict(result, "exactly_once_output").passed);
}

}  // namespace
}  // namespace eosim::engine
