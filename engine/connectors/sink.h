#pragma once
// The sink interface: general enough for two-phase-commit sinks (Kafka exactly-once) and for
// sinks that write at once (at-least-once, none, append, and later idempotent upserts). What sink
// authors keep tripping on (state after a rescale, unknown outcomes, lingering transactions) is in
// docs/api.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vocabulary/record.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/external/outside_system.h"
#include "sim/world.h"

namespace eosim::engine {

// An asynchronous call's id: 1, 2, ... per SinkContext, in the order the calls were made.
using CallId = uint64_t;

// The event of a call's request reaching its system.
inline constexpr sim::EventKind kCallLands{"sink.call_lands"};

// Asynchronous calls, after Flink's AsyncSinkWriter: a sink may call an outside system
// (the key-value, document and object stores) synchronously -- the answer is the return value, no
// time passes -- or asynchronously with `SinkContext::call`: the call gets an id at once; its
// request reaches the system after a drawn latency and is applied there then (refused when the
// caller's process is gone by then: a crash resets its connections); its answer reaches the
// sink's callback after another drawn latency, on the sink's node. Two calls of one sink may land
// and be answered in any order (answers overtake each other). A crashed task never gets its
// answers; a cancelled (closed) one still does, in its own callback, as a zombie would: a callback
// must only touch the state of the instance that made the call (a callback of a cancelled attempt
// updating state shared with the current attempt is the "stale completion" bug).
//
// SinkContext: what a sink may use of its task.
class SinkContext {
public:
    virtual ~SinkContext() = default;
    virtual sim::World& world() = 0;
    virtual sim::NodeId node() const = 0;
    virtual int32_t subtask() const = 0;
    // The subtasks of the sink in this attempt (Flink's getNumberOfParallelSubtasks).
    virtual int32_t parallelism() const = 0;
    // The vertex this task runs (empty where no job runs it, as in the contract-level testkit).
    virtual std::string_view vertex_id() const { return {}; }
    // The job's attempt this task belongs to (1, 2, ... : a failover starts the next one).
    virtual int64_t attempt() const = 0;
    // A name unique to this subtask and attempt, stable from run to run of the same seed (e.g. a
    // transactional id or an upload prefix that a later attempt must not reuse).
    std::string attempt_id() const {
        return "attempt-" + std::to_string(attempt()) + "-subtask-" + std::to_string(subtask());
    }
    virtual RunObserver& observer() = 0;
    // The sink points (engine/connectors/sink_points.h) this sink may announce: its kind's
    // SinkConfig::announced_points() (sink_registry.h), the one list the scenario loader (a fault
    // `at_point`), the testkit (where it aims faults) and `eosim points` read. The engine's task
    // and the testkit's context return it; a context of your own may return nullopt (not checked).
    virtual std::optional<std::vector<std::string_view>> declared_points() const {
        return std::nullopt;
    }
    // Announces a protocol point on behalf of this task: its node, vertex and subtask (a fault's
    // `vertex`/`subtask` filters match them). Listeners may crash the node before this returns.
    // A sink point that declared_points() does not list throws std::logic_error naming it (and the
    // fix): a reproducer with a fault there would be refused by the loader.
    void announce(std::string_view point, int64_t detail);
    // Runs `fn` after `delay`, if the task's process still runs then: also after the task was
    // cancelled (close()) -- a sink's own executor keeps running until close() stops it; not after
    // a crash.
    virtual void after(sim::Duration delay, std::function<void()> fn) = 0;
    // Fails the task (and with it the job's current attempt).
    virtual void fail(const std::string& reason) = 0;

    // An asynchronous call to `system` (see above the class): `request(caller)` runs at the
    // system when the request lands (it makes the synchronous call on behalf of `caller`, e.g.
    // `[kv, key](sim::NodeId caller) { return kv->set(caller, key, 1); }`; it owns what it reads),
    // `on_answer(id, result)` runs when the answer reaches this sink (never after a crash; also
    // after close()). Returns the call's id at once.
    template <typename Result>
    CallId call(sim::external::OutsideSystem& system,
                std::function<Result(sim::NodeId caller)> request,
                std::function<void(CallId, const Result&)> on_answer) {
        auto result = std::make_shared<Result>();
        const CallId id = ++last_call_;
        ++in_flight_;
        AsyncCall async{
            id, &system,
            [request = std::move(request), result, caller = node()] { *result = request(caller); },
            [this, id, result, on_answer = std::move(on_answer)] {
                --in_flight_;
                on_answer(id, *result);
                answered();
            }};
        send(std::move(async));
        return id;
    }
    // Calls made and not yet answered.
    int64_t calls_in_flight() const { return in_flight_; }

    // One call on its way, as a transport (`send`) carries it: `land` applies the request at the
    // system, `answer` delivers the answer to the sink (after `land`).
    struct AsyncCall {
        CallId id = 0;
        sim::external::OutsideSystem* system = nullptr;
        std::function<void()> land;
        std::function<void()> answer;
    };

protected:
    // Carries a call: by default the request lands after the system's drawn latency and the answer
    // comes back after another (through `after`, so a crashed task never gets it). The
    // contract-level testkit overrides it to draw the order itself.
    virtual void send(AsyncCall call) {
        const sim::Duration out = call.system->draw_latency();
        const sim::Duration back = call.system->draw_latency();
        world().scheduler().schedule(out, sim::kNoNode, kCallLands, call.id, std::move(call.land));
        after(out + back, std::move(call.answer));
    }
    // An answer was delivered to this sink (after its callback ran): a task waiting for
    // Sink::prepare_pre_commit asks again.
    virtual void answered() {}

private:
    CallId last_call_ = 0;
    int64_t in_flight_ = 0;
};

// Restored state is a list, as Flink's operator list state and Sink V2's restoreWriter(context,
// Collection<WriterState>) are: a restore hands the state every subtask of the checkpoint wrote to
// the subtasks of the restored job by `restoring_subtask` -- old subtask j to new subtask
// j % parallelism. At the same parallelism each subtask gets its own; when scaling in, a remaining
// subtask also gets the states of the removed ones (old subtask 5 of 6 goes to subtask 1 of 2), and
// must commit what they pre-committed and abort their lingering transactions; when scaling out, the
// new subtasks beyond the old count get none. A sink's next `pre_commit` then carries on whatever
// it took over that still needs a commit. Nothing is dropped. A restore at another parallelism
// follows a savepoint, and a failover too (a restart from a retained checkpoint with another -p,
// the adaptive scheduler after a lost TaskManager): the instances of the failed attempt may have
// crashed, so nobody closed them.
//
// One restored sink state: what subtask `subtask` of the restored checkpoint's job returned from
// its pre_commit (its index in that job's parallelism, which may differ from the restoring job's).
struct RestoredSinkState {
    int32_t subtask = 0;
    std::string state;
};

// The subtask (of `parallelism`) a restore hands the sink state of `old_subtask` to; the engine and
// the testkit both restore by it.
constexpr int32_t restoring_subtask(int32_t old_subtask, int32_t parallelism) {
    return old_subtask % parallelism;
}

// The contract, after Flink's TwoPhaseCommittingSink:
// - `open` runs when the task starts, with the sink's part of the restored checkpoint (if any):
//   every state it was given (RestoredSinkState): a 2PC sink commits the transactions found in
//   them and aborts the lingering ones (begun after the restored checkpoint) of its own subtask
//   index and of every subtask index that maps to it (docs/api.md, "What sink authors keep tripping
//   on");
// - `write` for every record;
// - `pre_commit` at the checkpoint barrier: flush, check every write, and return what a restore
//   needs. A write that failed fails the checkpoint; it is never dropped silently;
// - `checkpoint_complete(N)` commits everything pre-committed up to N. It is best effort: a lost
//   notification is made good by the next one, which subsumes it.
//
// An instance's life (Flink's; the engine and the testkit's contract level both keep it):
//   created --open--> open --close()--> closed; a crash ends any state with no further call.
//   While open: write, pre_commit(N), checkpoint_complete(N) (of a checkpoint it pre-committed;
//   late, out of order or never), in any number. A zombie -- an instance the job failed over
//   without reaching (its TaskManager lost the JobManager) -- is still open: it finishes what
//   reaches it (records, a barrier in flight, a notification already sent) while the next attempt
//   already runs, until its TaskManager cancels it with close(). After close() nothing reaches the
//   instance (its mailbox is closed: no write, pre_commit, notification or second close); what
//   lives on is its own: timers it set with SinkContext::after that close() did not stop, and the
//   answers of calls it made before, arriving late.
class Sink {
public:
    virtual ~Sink() = default;
    // `restored`: the states this subtask is given from checkpoint `restored_checkpoint_id` (0 and
    // none on a fresh start), ascending by old subtask; possibly several (a scale-in), possibly
    // none (a subtask beyond the old parallelism). Returns false (after calling ctx.fail) when the
    // sink cannot start.
    virtual bool open(int64_t restored_checkpoint_id,
                      const std::vector<RestoredSinkState>& restored) = 0;
    virtual void write(const RecordBatch& records) = 0;
    // The barrier reached the sink: send what is buffered; true when pre_commit may run, false to
    // wait for answers (the task takes no input meanwhile and asks again after every answer it
    // delivers to this sink, and every 10 ms while none is in flight, for a sink waiting on its own
    // timer). A synchronous sink has nothing to wait for (the default). Flink's
    // prepareSnapshotPreBarrier -> AsyncSinkWriter::flush(true). A sink whose completed checkpoint
    // must cover its writes says true only when nothing is in flight
    // (SinkContext::calls_in_flight()).
    virtual bool prepare_pre_commit(int64_t checkpoint_id) {
        (void)checkpoint_id;
        return true;
    }
    // Returns false with `error` set when the checkpoint must fail.
    virtual bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) = 0;
    virtual void checkpoint_complete(int64_t checkpoint_id) = 0;
    // True when nothing pre-committed waits for a commit (a finished task may then stop).
    virtual bool settled() const = 0;
    // The task is being cancelled (a failover, a stop, its TaskManager lost the JobManager), not
    // crashed: the last call the instance gets. The process lives on: whatever close() does not
    // stop (timers, calls in flight) still runs.
    virtual void close() {}
};

}  // namespace eosim::engine
