// An instance's life as Flink's (testkit/README.md, "An instance's life"): the
// calls a sink instance gets follow one state machine at both levels of the testkit and in the
// engine:
//   created --open--> open --close()--> closed;  open: write, pre_commit(N), checkpoint_complete(N)
//   of a checkpoint it pre-committed, any number of times, in any order;
//   closed: nothing more (no open, write, pre_commit, checkpoint_complete, second close);
//   a crash ends any state without a call.
// A zombie (an instance the job failed over without reaching) is still open: it may get writes, a
// barrier and notifications until its close. An audit wraps a real sink and records every call that
// breaks the machine; a hand-driven negative control shows that the audit can fail.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/forwarding_sink.h"

namespace eosim::testkit {
namespace {

// What the audited instances did, over a check (reset by each test).
struct LifecycleAudit {
    std::vector<std::string> violations;
    int64_t instances = 0;
    int64_t zombie_calls =
        0;  // calls to an open instance of an attempt older than the newest opened
    int64_t newest_attempt = 0;
};

LifecycleAudit& audit() {
    static LifecycleAudit the_audit;
    return the_audit;
}

class AuditedSink final : public sink_wrapping::ForwardingSink {
public:
    AuditedSink(engine::SinkContext& context, std::unique_ptr<engine::Sink> inner)
        : ForwardingSink(std::move(inner)), context_(context) {
        ++audit().instances;
    }
    bool open(int64_t restored_checkpoint_id,
              const std::vector<engine::RestoredSinkState>& restored) override {
        expect(State::created, "open");
        state_ = State::open;
        audit().newest_attempt = std::max(audit().newest_attempt, context_.attempt());
        return ForwardingSink::open(restored_checkpoint_id, restored);
    }
    void write(const engine::RecordBatch& records) override {
        expect(State::open, "write");
        ForwardingSink::write(records);
    }
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        expect(State::open, "pre_commit(" + std::to_string(checkpoint_id) + ")");
        const bool ok = ForwardingSink::pre_commit(checkpoint_id, state, error);
        if (ok) pre_committed_.insert(checkpoint_id);
        return ok;
    }
    void checkpoint_complete(int64_t checkpoint_id) override {
        const std::string call = "checkpoint_complete(" + std::to_string(checkpoint_id) + ")";
        expect(State::open, call);
        if (!pre_committed_.contains(checkpoint_id))
            violation(call + " of a checkpoint it did not pre-commit");
        ForwardingSink::checkpoint_complete(checkpoint_id);
    }
    void close() override {
        expect(State::open, "close");
        state_ = State::closed;
        ForwardingSink::close();
    }

private:
    enum class State : uint8_t { created, open, closed };
    static const char* name(State s) {
        return s == State::created ? "created" : s == State::open ? "open" : "closed";
    }
    void expect(State wanted, const std::string& call) {
        if (state_ != wanted)
            violation(call + " while " + name(state_) + " (allowed only while " + name(wanted) +
                      ")");
        if (state_ == State::open && context_.attempt() < audit().newest_attempt)
            ++audit().zombie_calls;
    }
    void violation(const std::string& what) {
        audit().violations.push_back("attempt " + std::to_string(context_.attempt()) +
                                     ", subtask " + std::to_string(context_.subtask()) + ": " +
                                     what);
    }
    engine::SinkContext& context_;
    State state_ = State::created;
    std::set<int64_t> pre_committed_;
};

std::unique_ptr<engine::Sink> audited(engine::SinkContext& context,
                                      const sink_wrapping::MakeInner& make_inner) {
    return std::make_unique<AuditedSink>(context, make_inner(context));
}

EOSIM_REGISTER_SINK(sink_wrapping::wrapped_kind("lifecycle_audit_kafka", "kafka", audited));
// A sink with a timer of its own (a periodic bulk flush that close() stops:
// test_connector_bugs.cpp).
EOSIM_REGISTER_SINK(sink_wrapping::wrapped_kind("lifecycle_audit_documents",
                                                "bugs_documents_flush_timer", audited));

std::string listed(const std::vector<std::string>& violations) {
    std::string out;
    for (size_t i = 0; i < violations.size() && i < 10; ++i) out += violations[i] + "\n";
    return out;
}

// A context for driving an audited sink by hand.
class HandContext final : public engine::SinkContext {
public:
    sim::World& world() override { return world_; }
    sim::NodeId node() const override { return 0; }
    int32_t subtask() const override { return 0; }
    int32_t parallelism() const override { return 1; }
    int64_t attempt() const override { return 1; }
    engine::RunObserver& observer() override { return observer_; }
    void after(sim::Duration, std::function<void()>) override {}
    void fail(const std::string&) override {}

private:
    sim::World world_{sim::WorldOptions{1, {}, {}}};
    engine::RunObserver observer_;
};

class NothingSink final : public engine::Sink {
public:
    bool open(int64_t, const std::vector<engine::RestoredSinkState>&) override { return true; }
    void write(const engine::RecordBatch&) override {}
    bool pre_commit(int64_t, std::string*, std::string*) override { return true; }
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }
};

TEST_CASE(
    "sink lifecycle: the audit flags calls after close and notifications of checkpoints not pre-committed",
    "[testkit]") {
    audit() = LifecycleAudit{};
    HandContext context;
    AuditedSink sink(context, std::make_unique<NothingSink>());
    std::string state;
    std::string error;
    REQUIRE(sink.open(0, {}));
    sink.write({engine::Record{1, 1}});
    REQUIRE(sink.pre_commit(1, &state, &error));
    sink.checkpoint_complete(1);
    CHECK(audit().violations.empty());
    sink.checkpoint_complete(2);  // never pre-committed
    sink.close();
    sink.write({engine::Record{1, 2}});  // a closed instance's mailbox is closed
    (void)sink.pre_commit(3, &state, &error);
    sink.close();
    INFO(listed(audit().violations));
    REQUIRE(audit().violations.size() == 4);
    CHECK(audit().violations[0].find(
              "checkpoint_complete(2) of a checkpoint it did not pre-commit") != std::string::npos);
    CHECK(audit().violations[1].find("write while closed") != std::string::npos);
    CHECK(audit().violations[3].find("close while closed") != std::string::npos);
}

TEST_CASE(
    "sink lifecycle: the contract level keeps to an instance's life (nothing after close, zombies before it)",
    "[testkit]") {
    for (const char* sink : {"lifecycle_audit_kafka", "lifecycle_audit_documents"}) {
        INFO(sink);
        audit() = LifecycleAudit{};
        ContractOptions o;
        o.sink = sink;
        if (std::string(sink).find("kafka") != std::string::npos) o.options = {{"topic", "output"}};
        if (std::string(sink).find("documents") != std::string::npos)
            o.visibility = Visibility::eventually;
        o.cases = 300;
        const auto result = check_sink_contract(o);
        INFO(result.report);
        CHECK(result.passed);
        INFO(listed(audit().violations));
        CHECK(audit().violations.empty());
        CHECK(audit().zombie_calls > 0);  // zombies were reached before their close
        CHECK(result.faults_drawn.contains("zombie"));
    }
}

TEST_CASE("sink lifecycle: the engine keeps to the same life inside jobs", "[testkit]") {
    testing::TempDir dir;
    for (const char* sink : {"lifecycle_audit_kafka", "lifecycle_audit_documents"}) {
        INFO(sink);
        audit() = LifecycleAudit{};
        JobOptions o;
        o.sink = sink;
        if (std::string(sink).find("kafka") != std::string::npos) o.options = {{"topic", "output"}};
        o.cases = 10;
        o.output_dir = (dir / sink).string();
        const auto result = check_sink_in_jobs(o);
        INFO(result.report);
        CHECK(result.passed);
        INFO(listed(audit().violations));
        CHECK(audit().violations.empty());
        CHECK(audit().instances > 0);
        WARN(std::string(sink) + " in jobs: " + std::to_string(audit().instances) +
             " instances audited");
    }
}

}  // namespace
}  // namespace eosim::testkit
