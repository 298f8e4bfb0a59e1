// TimerService (engine/state/timer_service.h): event-time timers fire in (time, key, ns) order up
// to the watermark, including ones registered while firing when due (and not those beyond it);
// deleting and re-registering; timers are cells of the keyed state under the reserved state ids;
// they survive a snapshot/restore in every backend, also rescaled (a timer goes with its key's key
// group), and restored() rebuilds the index; processing-time timers likewise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"
#include "engine/state/timer_service.h"

namespace eosim::engine {
namespace {

constexpr int32_t kTimerMaxParallelism = 128;

using Fired = std::vector<std::tuple<int64_t, int64_t, int64_t>>;  // (time, key, ns)

std::unique_ptr<KeyedStateBackend> whole_range_backend(
    StateBackendKind kind = StateBackendKind::heap) {
    return make_state_backend(StateBackendOptions{kind, false},
                              KeyGroupRange{0, kTimerMaxParallelism - 1}, kTimerMaxParallelism,
                              "op-0-a1");
}

TimerService::Fire record_into(Fired& fired) {
    return [&fired](int64_t key, int64_t ns, int64_t time) { fired.emplace_back(time, key, ns); };
}

TEST_CASE("timer service: event-time timers fire in (time, key, ns) order up to the watermark",
          "[timers]") {
    auto state = whole_range_backend();
    TimerService timers(*state);
    CHECK(timers.current_watermark() == TimerService::kMinWatermark);
    timers.register_event_time_timer(7, 2, 100);
    timers.register_event_time_timer(3, 9, 100);
    timers.register_event_time_timer(3, 1, 100);
    timers.register_event_time_timer(1, 0, 250);
    timers.register_event_time_timer(5, 0, 99);
    timers.register_event_time_timer(5, 0, 99);  // twice: one timer
    timers.register_event_time_timer(-4, 0, -20);
    Fired fired;
    timers.advance_watermark(-21, record_into(fired));
    CHECK(fired.empty());
    timers.advance_watermark(100, record_into(fired));
    CHECK(fired == Fired{{-20, -4, 0}, {99, 5, 0}, {100, 3, 1}, {100, 3, 9}, {100, 7, 2}});
    CHECK(timers.current_watermark() == 100);
    // Fired timers are gone from the state; the one not yet due is still there.
    CHECK(state->cells() ==
          std::map<StateKey, int64_t>{{StateKey{1, kEventTimerState, 250, 0}, 1}});
    fired.clear();
    timers.advance_watermark(50, record_into(fired));  // backwards: nothing happens
    CHECK(fired.empty());
    CHECK(timers.current_watermark() == 100);
    timers.advance_watermark(1000, record_into(fired));
    CHECK(fired == Fired{{250, 1, 0}});
    CHECK(state->cells().empty());
}

TEST_CASE("timer service: timers registered while firing fire in the same advance when due",
          "[timers]") {
    auto state = whole_range_backend();
    TimerService timers(*state);
    timers.register_event_time_timer(1, 0, 10);
    timers.register_event_time_timer(2, 0, 30);
    Fired fired;
    timers.advance_watermark(40, [&](int64_t key, int64_t ns, int64_t time) {
        fired.emplace_back(time, key, ns);
        if (key == 1 && ns == 0) {
            timers.register_event_time_timer(1, 1, 20);  // due, and before (30, 2, 0): fires next
            timers.register_event_time_timer(1, 2, 40);  // due: fires last
            timers.register_event_time_timer(1, 3, 41);  // beyond the watermark: waits
        }
    });
    CHECK(fired == Fired{{10, 1, 0}, {20, 1, 1}, {30, 2, 0}, {40, 1, 2}});
    CHECK(state->cells() == std::map<StateKey, int64_t>{{StateKey{1, kEventTimerState, 41, 3}, 1}});
}

TEST_CASE("timer service: deleted timers do not fire, and their cells are gone", "[timers]") {
    auto state = whole_range_backend();
    TimerService timers(*state);
    timers.register_event_time_timer(1, 0, 10);
    timers.register_event_time_timer(1, 1, 10);
    timers.register_processing_time_timer(1, 0, 10);
    timers.delete_event_time_timer(1, 0, 10);
    timers.delete_event_time_timer(1, 0, 11);  // never registered: nothing happens
    CHECK(state->cells() ==
          std::map<StateKey, int64_t>{{StateKey{1, kProcessingTimerState, 10, 0}, 1},
                                      {StateKey{1, kEventTimerState, 10, 1}, 1}});
    Fired fired;
    timers.advance_watermark(10, [&](int64_t key, int64_t ns, int64_t time) {
        fired.emplace_back(time, key, ns);
        timers.delete_processing_time_timer(1, 0, 10);  // a firing may delete other timers
    });
    CHECK(fired == Fired{{10, 1, 1}});
    CHECK_FALSE(timers.next_processing_time().has_value());
    CHECK(state->cells().empty());
}

TEST_CASE("timer service: processing-time timers", "[timers]") {
    auto state = whole_range_backend();
    TimerService timers(*state);
    CHECK_FALSE(timers.next_processing_time().has_value());
    timers.register_processing_time_timer(4, 0, 500);
    timers.register_processing_time_timer(2, 0, 500);
    timers.register_processing_time_timer(9, 1, 200);
    timers.register_event_time_timer(9, 1, 100);  // event time: not fired by processing time
    CHECK(timers.next_processing_time() == 200);
    Fired fired;
    timers.advance_processing_time(199, record_into(fired));
    CHECK(fired.empty());
    timers.advance_processing_time(500, [&](int64_t key, int64_t ns, int64_t time) {
        fired.emplace_back(time, key, ns);
        if (key == 9 && ns == 1)
            timers.register_processing_time_timer(9, 2, 300);            // due: fires now
        if (key == 4) timers.register_processing_time_timer(9, 2, 800);  // later
    });
    CHECK(fired == Fired{{200, 9, 1}, {300, 9, 2}, {500, 2, 0}, {500, 4, 0}});
    CHECK(timers.next_processing_time() == 800);
    CHECK(timers.event_time_timers().size() == 1);
}

// Timers of many keys in `parallelism` subtasks, checkpointed, restored at another parallelism.
void check_restore(StateBackendKind kind, bool incremental, int32_t old_parallelism,
                   int32_t new_parallelism) {
    INFO("kind " << static_cast<int>(kind) << " incremental " << incremental << " "
                 << old_parallelism << " -> " << new_parallelism);
    const StateBackendOptions options{kind, incremental};
    auto make = [&](int32_t parallelism) {
        std::vector<std::unique_ptr<KeyedStateBackend>> backends;
        for (int32_t s = 0; s < parallelism; ++s) {
            backends.push_back(make_state_backend(
                options, KeyGroupRange::of_subtask(s, parallelism, kTimerMaxParallelism),
                kTimerMaxParallelism, "op-" + std::to_string(s) + "-a1"));
        }
        return backends;
    };
    auto before = make(old_parallelism);
    std::vector<std::unique_ptr<TimerService>> before_timers;
    for (auto& b : before) before_timers.push_back(std::make_unique<TimerService>(*b));
    Fired expected_event, expected_processing;
    for (int64_t key = -50; key < 150; ++key) {
        const auto s =
            static_cast<size_t>(subtask_for_key(key, kTimerMaxParallelism, old_parallelism));
        before[s]->put(key, key * 2);  // the operator's own state next to the timers
        before_timers[s]->register_event_time_timer(key, key % 3, 1000 + (key * 37) % 100);
        before_timers[s]->register_processing_time_timer(key, 0, 5000 + key);
        expected_event.emplace_back(1000 + (key * 37) % 100, key, key % 3);
        expected_processing.emplace_back(5000 + key, key, 0);
    }
    // Fire some before the checkpoint: those must not come back.
    for (auto& t : before_timers) t->advance_watermark(1020, [](int64_t, int64_t, int64_t) {});
    std::sort(expected_event.begin(), expected_event.end());
    std::sort(expected_processing.begin(), expected_processing.end());
    std::erase_if(expected_event, [](const auto& timer) { return std::get<0>(timer) <= 1020; });

    std::vector<std::string> blobs;
    std::map<std::string, std::string> shared;
    for (size_t s = 0; s < before.size(); ++s) {
        if (!incremental) {
            blobs.push_back(before[s]->snapshot());
            continue;
        }
        IncrementalSnapshot snap =
            before[s]->snapshot_incremental(1, "shared/op-" + std::to_string(s) + "-c1-");
        for (auto& upload : snap.uploads) shared[upload.key] = std::move(upload.bytes);
        blobs.push_back(std::move(snap.private_state));
    }
    auto after = make(new_parallelism);
    std::vector<std::unique_ptr<TimerService>> after_timers;
    Fired fired_event, fired_processing;
    for (int32_t s = 0; s < new_parallelism; ++s) {
        auto& b = after[static_cast<size_t>(s)];
        auto timers = std::make_unique<TimerService>(*b);
        int64_t stale_key = 0;
        while (subtask_for_key(stale_key, kTimerMaxParallelism, new_parallelism) != s) ++stale_key;
        timers->register_event_time_timer(stale_key, 0,
                                          1);  // dropped by the restore and restored()
        if (!incremental) {
            b->restore(blobs);
        } else {
            std::map<std::string, std::string> files;
            for (const auto& key : shared_keys_to_restore(
                     blobs, KeyGroupRange::of_subtask(s, new_parallelism, kTimerMaxParallelism))) {
                files[key] = shared.at(key);
            }
            b->restore_incremental(blobs, files);
        }
        timers->restored();
        CHECK(timers->current_watermark() == TimerService::kMinWatermark);
        Fired subtask_event;
        timers->advance_watermark(1020,
                                  record_into(subtask_event));  // the task's restored watermark
        CHECK(subtask_event.empty());
        timers->advance_watermark(INT64_MAX, record_into(subtask_event));
        for (const auto& [time, key, ns] : subtask_event) {
            CHECK(subtask_for_key(key, kTimerMaxParallelism, new_parallelism) ==
                  s);  // with its key group
        }
        CHECK(std::is_sorted(subtask_event.begin(), subtask_event.end()));
        fired_event.insert(fired_event.end(), subtask_event.begin(), subtask_event.end());
        timers->advance_processing_time(INT64_MAX, record_into(fired_processing));
        // The operator's own state came back next to them, and no timer cell is left.
        for (const auto& [at, value] : b->cells()) {
            CHECK(at.state == 0);
            CHECK(value == at.key * 2);
        }
        after_timers.push_back(std::move(timers));
    }
    std::sort(fired_event.begin(), fired_event.end());
    std::sort(fired_processing.begin(), fired_processing.end());
    CHECK(fired_event == expected_event);
    CHECK(fired_processing == expected_processing);
}

TEST_CASE("timer service: timers survive snapshot and restore, also rescaled", "[timers]") {
    for (auto [from, to] : {std::pair{2, 2}, std::pair{2, 3}, std::pair{3, 1}}) {
        check_restore(StateBackendKind::heap, false, from, to);
        check_restore(StateBackendKind::rocksdb, false, from, to);
        check_restore(StateBackendKind::rocksdb, true, from, to);
    }
}

}  // namespace
}  // namespace eosim::engine
