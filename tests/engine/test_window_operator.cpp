// The window operator driven by hand (records, watermarks, a snapshot and a restore), judged by the
// window oracle against the window model: Flink's firing rules (fire at maxTimestamp, late records
// within the allowed lateness re-fire with the cumulative aggregate, purge at cleanup, a record
// late for all its windows to the side output), count windows, and the restore of window contents
// and timers from a snapshot. Negative controls, deliberately broken operators that live here only:
// one that does not restore its watermark (a purged window takes a late record and fires again
// from scratch) and one that forgets which windows fired (re-fires them on restore); the oracle
// must fire on both.
#include <catch2/catch.hpp>

#include "engine/runtime/window_operator.h"
#include "engine/state/state_backend.h"
#include "oracles/window_model.h"
#include "oracles/window_oracle.h"

namespace eosim::engine {
namespace {

constexpr int32_t kMaxParallelism = 128;

Record at(int64_t key, int64_t value, int64_t ts) {
    return Record{key, value, 0, RowKind::insert, ts};
}

WindowSpec tumbling(int64_t size_ms, int64_t lateness_ms) {
    WindowSpec s;
    s.size = sim::Duration::millis(size_ms);
    s.allowed_lateness = sim::Duration::millis(lateness_ms);
    return s;
}

std::unique_ptr<KeyedStateBackend> fresh_state() {
    return make_heap_state_backend(KeyGroupRange{0, kMaxParallelism - 1}, kMaxParallelism);
}

// An operator under test with what it emitted, and a restore through a real snapshot.
struct Harness {
    WindowSpec spec;
    std::unique_ptr<Operator> op;
    std::vector<Record> results;
    std::vector<Record> late;
    int64_t fired = 0;
    Emit out{[this](const Record& r) { results.push_back(r); },
             [this](const Record& r) { late.push_back(r); }};

    explicit Harness(WindowSpec s) : spec(s) { op = build(fresh_state()); }
    std::unique_ptr<Operator> build(std::unique_ptr<KeyedStateBackend> state) {
        auto w = std::make_unique<WindowOperator>(spec, std::move(state));
        w->set_fired_listener([this](int64_t) { ++fired; });
        return w;
    }
    void record(const Record& r) { op->process(0, r, out); }
    void watermark(int64_t w) { op->advance_watermark(w, out); }
    // Snapshot now; later `restore` rebuilds the operator from it, as a failover does, and hands
    // it `restored_watermark` first (the task's checkpointed watermark).
    std::string snapshot() const { return const_cast<Operator&>(*op).keyed_state()->snapshot(); }
    void restore(const std::string& snapshot, int64_t restored_watermark,
                 bool announce_watermark = true) {
        auto state = fresh_state();
        state->restore({snapshot});
        op = build(std::move(state));
        if (announce_watermark) watermark(restored_watermark);
    }
};

oracles::Verdict judge(const oracles::WindowModel& model, const std::vector<Record>& results,
                       const std::vector<Record>& late) {
    const oracles::WindowOutputOracle oracle(
        model, "w", [results] { return results; }, [late] { return late; }, false);
    return oracle.verdict();
}

TEST_CASE(
    "window operator: fires at maxTimestamp, re-fires late records within the lateness, side-outputs after cleanup",
    "[window]") {
    Harness h(tumbling(1000, 500));
    h.record(at(1, 1, 100));
    h.record(at(1, 1, 900));
    h.record(at(2, 1, 950));
    h.watermark(998);
    CHECK(h.results.empty());
    h.watermark(999);
    CHECK(h.results == std::vector<Record>{at(1, 2, 999), at(2, 1, 999)});
    h.record(at(1, 1, 500));  // late, within the lateness: fires at once with the cumulative count
    CHECK(h.results.back() == at(1, 3, 999));
    h.watermark(1499);        // cleanup: purged
    h.record(at(1, 1, 600));  // late for its only window: side output
    CHECK(h.late == std::vector<Record>{at(1, 1, 600)});
    CHECK(h.results.size() == 3);
    CHECK(h.fired == 3);
    h.record(at(1, 1, 1200));                          // the next window
    h.watermark(std::numeric_limits<int64_t>::max());  // end of input
    CHECK(h.results.back() == at(1, 1, 1999));
    CHECK(h.op->keyed_state()->cells().empty());  // every window purged, every timer gone
}

TEST_CASE("window operator: sliding windows drop a record only for the windows it is late for",
          "[window]") {
    WindowSpec s = tumbling(1000, 0);
    s.kind = WindowSpec::Kind::sliding;
    s.slide = sim::Duration::millis(500);
    Harness h(s);
    h.record(at(1, 1, 600));
    h.watermark(999);         // fires [0, 1000)
    h.record(at(1, 1, 700));  // late for [0, 1000), counted in [500, 1500)
    CHECK(h.late.empty());
    h.watermark(1499);
    CHECK(h.results == std::vector<Record>{at(1, 1, 999), at(1, 2, 1499)});
    h.record(at(1, 1, 800));  // late for both of its windows: side output
    CHECK(h.late == std::vector<Record>{at(1, 1, 800)});
}

TEST_CASE(
    "window operator: count windows fire every n-th record of a key and keep the rest in state",
    "[window]") {
    WindowSpec s;
    s.kind = WindowSpec::Kind::count;
    s.size_records = 2;
    s.aggregate = WindowSpec::Aggregate::sum;
    Harness h(s);
    h.record(at(1, 5, 10));
    h.record(at(2, 1, 11));
    const std::string snapshot = h.snapshot();
    h.restore(snapshot, TimerService::kMinWatermark);
    h.record(at(1, 7, 12));
    CHECK(h.results == std::vector<Record>{at(1, 12, 12)});
    h.watermark(std::numeric_limits<int64_t>::max());  // a rest below n never fires
    CHECK(h.results.size() == 1);
}

// Runs a window of key 1 to a restore: two records fire it, a checkpoint after its cleanup, a
// failover to that checkpoint, then a record far behind. The correct operator side-outputs it.
template <typename Restore>
std::pair<std::vector<Record>, std::vector<Record>> fired_purged_then_restored(Restore restore) {
    Harness h(tumbling(1000, 200));
    h.record(at(1, 1, 100));
    h.record(at(1, 1, 200));
    h.watermark(1199);  // fired (2) and purged at cleanup 1199
    const std::string snapshot = h.snapshot();
    const int64_t watermark = 1199;
    restore(h, snapshot, watermark);
    h.record(at(1, 1, 300));
    h.watermark(std::numeric_limits<int64_t>::max());
    return {h.results, h.late};
}

oracles::WindowModel model_of_three_records() {
    oracles::WindowModel model(tumbling(1000, 200));
    model.add(at(1, 1, 100), true);
    model.add(at(1, 1, 200), true);
    model.add(at(1, 1, 300), false);
    return model;
}

TEST_CASE(
    "window operator restored with its watermark side-outputs a late record of a purged window",
    "[window]") {
    const auto [results, late] = fired_purged_then_restored(
        [](Harness& h, const std::string& s, int64_t w) { h.restore(s, w); });
    CHECK(results == std::vector<Record>{at(1, 2, 999)});
    CHECK(late == std::vector<Record>{at(1, 1, 300)});
    CHECK(judge(model_of_three_records(), results, late).passed);
}

TEST_CASE(
    "negative control: an operator that does not restore its watermark fires a purged window again",
    "[window]") {
    const auto [results, late] =
        fired_purged_then_restored([](Harness& h, const std::string& s, int64_t w) {
            h.restore(s, w, /*announce_watermark=*/false);
        });
    CHECK(late.empty());
    const oracles::Verdict v = judge(model_of_three_records(), results, late);
    CHECK_FALSE(v.passed);
    INFO(v.message);
}

// Forgets which windows fired: on restore it fires every window in its state whose maxTimestamp is
// at or below the restored watermark, as if the firing had not happened (Flink's "fired flag" bug
// class). A deliberately broken wrapper around the real operator.
class RefiresOnRestore final : public Operator {
public:
    RefiresOnRestore(WindowSpec spec, std::unique_ptr<KeyedStateBackend> state)
        : spec_(spec), inner_(spec, std::move(state)) {}
    void process(int32_t input, const Record& in, const Emit& out) override {
        inner_.process(input, in, out);
    }
    void advance_watermark(int64_t watermark, const Emit& out) override {
        if (first_) {
            first_ = false;
            inner_.keyed_state()->scan_state(
                WindowOperator::kWindowContentsState, [&](const StateKey& at, int64_t aggregate) {
                    const TimeWindow w = window_ending_at(spec_, at.ns);
                    if (w.max_timestamp() <= watermark) out(window_result(at.key, w, aggregate));
                });
        }
        inner_.advance_watermark(watermark, out);
    }
    KeyedStateBackend* keyed_state() override { return inner_.keyed_state(); }

private:
    WindowSpec spec_;
    WindowOperator inner_;
    bool first_ = true;
};

TEST_CASE("negative control: an operator that forgets a window fired re-fires it on restore",
          "[window]") {
    Harness h(tumbling(1000, 500));
    h.record(at(1, 1, 100));
    h.record(at(1, 1, 200));
    h.watermark(1100);  // fired (2), within the lateness: still in state
    const std::string snapshot = h.snapshot();
    auto state = fresh_state();
    state->restore({snapshot});
    h.op = std::make_unique<RefiresOnRestore>(h.spec, std::move(state));
    h.watermark(1100);
    h.watermark(std::numeric_limits<int64_t>::max());
    oracles::WindowModel model(tumbling(1000, 500));
    model.add(at(1, 1, 100), true);
    model.add(at(1, 1, 200), true);
    const oracles::Verdict v = judge(model, h.results, h.late);
    CHECK_FALSE(v.passed);
    CHECK_THAT(v.message, Catch::Contains("fired twice with 2"));
    // The real operator, restored the same way, does not.
    Harness good(tumbling(1000, 500));
    good.record(at(1, 1, 100));
    good.record(at(1, 1, 200));
    good.watermark(1100);
    good.restore(good.snapshot(), 1100);
    good.watermark(std::numeric_limits<int64_t>::max());
    CHECK(judge(model, good.results, good.late).passed);
}

}  // namespace
}  // namespace eosim::engine
