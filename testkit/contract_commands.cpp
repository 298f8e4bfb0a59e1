#include "testkit/contract_commands.h"

#include <algorithm>

namespace eosim::testkit {

namespace {

using Command = ContractCommand;

// A value in [0, total), uniform at every size (rapidcheck's inRange favours small values at small
// sizes, which would starve the commands and fault choices listed last); shrinks towards 0.
rc::Gen<int> uniform(int total) { return rc::gen::resize(100, rc::gen::inRange<int>(0, total)); }

// Which subtask a command addresses: drawn in [0, parallelism); the harness takes it modulo the
// number of subtasks running then, so a shrunk sequence stays runnable.
rc::Gen<int32_t> subtask_pick(const ContractModel& m) {
    return rc::gen::resize(100, rc::gen::inRange<int32_t>(0, m->parallelism));
}

void show_subtask(std::ostream& os, const ContractModel& m, int32_t subtask) {
    if (m->parallelism > 1) os << "subtask " << subtask << " (modulo the subtasks running): ";
}

struct Write final : Command {
    ContractModel model;
    int32_t subtask;
    std::vector<int32_t> keys;
    explicit Write(const ContractModel& m)
        : model(m),
          subtask(*subtask_pick(m)),
          keys(*rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<int32_t>>(
                                       rc::gen::inRange<int32_t>(0, m->keys))))) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.write(subtask, keys);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "write the job's next " << keys.size()
           << " record(s) (replayed ones first; new ones get keys";
        for (int32_t k : keys) os << " k" << k;
        os << ")";
    }
};

// Which asynchronous call in flight takes a step (modulo those in flight, oldest first); shrinks
// towards the oldest.
rc::Gen<int32_t> call_pick() { return rc::gen::resize(100, rc::gen::inRange<int32_t>(0, 8)); }

struct PreCommit final : Command {
    ContractModel model;
    int32_t subtask;  // among the subtasks that have not pre-committed the checkpoint in flight
    std::vector<int32_t>
        call_picks;  // while it waits for its calls: which call takes each step (then the oldest)
    explicit PreCommit(const ContractModel& m)
        : model(m),
          subtask(*subtask_pick(m)),
          call_picks(m->async_calls ? *rc::gen::resize(
                                          8, rc::gen::container<std::vector<int32_t>>(call_pick()))
                                    : std::vector<int32_t>{}) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.pre_commit(subtask, call_picks);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        if (model->parallelism > 1)
            os << "subtask " << subtask << " (modulo the subtasks still waiting for the barrier): ";
        os << "pre-commit the checkpoint in flight (or the next one)";
        if (!call_picks.empty()) {
            os << "; while it waits, calls in flight step in the order";
            for (int32_t p : call_picks) os << " #" << p + 1;
        }
    }
};

// Asynchronous calls: one call in flight takes its next step (its request lands, or its answer
// comes).
struct StepCall final : Command {
    int32_t pick;
    explicit StepCall(const ContractModel&) : pick(*call_pick()) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.step_call(pick);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "call in flight #" << pick + 1 << " (modulo those in flight) takes a step";
    }
};

struct Complete final : Command {
    int32_t pick;
    Delivery delivery;
    explicit Complete(const ContractModel& m)
        : pick(*rc::gen::weightedOneOf<int32_t>(
              {{4, rc::gen::just<int32_t>(0)}, {1, rc::gen::inRange<int32_t>(1, 4)}})),
          delivery(*rc::gen::weightedElement<Delivery>(
              {{5, Delivery::now},
               {static_cast<size_t>(m->weight("notification_lost")), Delivery::lost},
               {static_cast<size_t>(m->weight("notification_late")), Delivery::late}})) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.complete(pick, delivery);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "complete the latest pre-committed checkpoint"
           << (pick == 0 ? std::string()
                         : " but " + std::to_string(pick) + " (if there are that many)")
           << ", notification " << to_string(delivery);
    }
};

struct DeliverLate final : Command {
    int32_t pick;
    explicit DeliverLate(const ContractModel&) : pick(*rc::gen::inRange<int32_t>(0, 3)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.deliver_late(pick);
        check_now(h);
    }
    void show(std::ostream& os) const override { os << "deliver held-back notification #" << pick; }
};

// The parallelism a failover restores at: mostly the same (0: Flink's restart strategy), else
// 1..parallelism (a restart from a retained checkpoint with another -p, the adaptive scheduler);
// shrinks towards the same.
rc::Gen<int32_t> failover_parallelism(const ContractModel& m) {
    if (m->parallelism == 1) return rc::gen::just<int32_t>(0);
    return rc::gen::weightedOneOf<int32_t>(
        {{1, rc::gen::just<int32_t>(0)},
         {2, rc::gen::resize(100, rc::gen::inRange<int32_t>(1, m->parallelism + 1))}});
}

void show_failover(std::ostream& os, int32_t parallelism) {
    os << "restore from the latest completed checkpoint";
    if (parallelism > 0) os << " with " << parallelism << " subtask(s) (if one completed)";
}

struct Crash final : Command {
    int32_t parallelism;
    explicit Crash(const ContractModel& m) : parallelism(*failover_parallelism(m)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.crash(parallelism);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "crash, ";
        show_failover(os, parallelism);
    }
};

struct CrashAtPoint final : Command {
    std::string point;
    int32_t parallelism;
    explicit CrashAtPoint(const ContractModel& m)
        : point(*rc::gen::elementOf(m->points)), parallelism(*failover_parallelism(m)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.crash_at_point(point, parallelism);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "crash at the sink's next announcement of " << point << ", then ";
        show_failover(os, parallelism);
    }
};

struct Cancel final : Command {
    int32_t parallelism;
    explicit Cancel(const ContractModel& m) : parallelism(*failover_parallelism(m)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.cancel(parallelism);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "cancel (the old instance is a zombie until it is closed), ";
        show_failover(os, parallelism);
    }
};

struct CloseZombie final : Command {
    explicit CloseZombie(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.close_zombie();
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "the latest zombie learns of the cancel (close())";
    }
};

struct StopWithSavepoint final : Command {
    explicit StopWithSavepoint(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.stop_with_savepoint();
        check_now(h);
    }
    void show(std::ostream& os) const override { os << "stop with a savepoint"; }
};

struct RestoreFromSavepoint final : Command {
    int32_t parallelism;
    explicit RestoreFromSavepoint(const ContractModel& m)
        : parallelism(*rc::gen::resize(100, rc::gen::inRange<int32_t>(1, m->parallelism + 1))) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.restore_from_savepoint(parallelism);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "restore the stopped job from its savepoint with " << parallelism << " subtask(s)";
    }
};

struct ZombieWrite final : Command {
    ContractModel model;
    int32_t subtask;
    int32_t records;
    explicit ZombieWrite(const ContractModel& m)
        : model(m), subtask(*subtask_pick(m)), records(*rc::gen::inRange<int32_t>(1, 4)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.zombie_write(subtask, records);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "the zombie writes " << records << " record(s)";
    }
};

struct ZombiePreCommit final : Command {
    ContractModel model;
    int32_t subtask;
    explicit ZombiePreCommit(const ContractModel& m) : model(m), subtask(*subtask_pick(m)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.zombie_pre_commit(subtask);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "the zombie pre-commits";
    }
};

using sim::external::CallDelivery;
using sim::external::RaceStep;

// How one raced write is delivered; shrinks towards "answered".
rc::Gen<RaceStep> race_step() {
    return rc::gen::apply(
        [](CallDelivery delivery, int32_t late_by) {
            return RaceStep{delivery, late_by};
        },
        rc::gen::weightedElement<CallDelivery>({{1, CallDelivery::now},
                                                {2, CallDelivery::answer_lost},
                                                {2, CallDelivery::late},
                                                {2, CallDelivery::request_lost}}),
        rc::gen::resize(100, rc::gen::inRange<int32_t>(1, 9)));  // uniform at every size
}

struct Fault final : Command {
    FaultChoice choice;
    int64_t millis;
    explicit Fault(const ContractModel& m) : millis(*rc::gen::element<int64_t>(100, 500, 2000)) {
        int total = 0;
        for (int w : m->fault_weights) total += w;
        int r = *uniform(total);
        size_t i = 0;
        while (r >= m->fault_weights[i]) r -= m->fault_weights[i++];
        choice = m->faults[i];
    }
    void run(const ContractModel&, ContractHarness& h) const override {
        h.fault(choice, millis);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "fault: " << choice.kind << " of " << choice.system << " for " << millis << " ms";
    }
};

// system_call_races: the deliveries of the next writes to one system.
struct Race final : Command {
    std::string system;
    std::vector<RaceStep> steps;
    explicit Race(const ContractModel& m)
        : system(*rc::gen::elementOf(m->race_systems)),
          steps(*rc::gen::resize(
              6, rc::gen::nonEmpty(rc::gen::container<std::vector<RaceStep>>(race_step())))) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.race(system, steps);
        check_now(h);
    }
    void show(std::ostream& os) const override {
        os << "calls race: the next " << steps.size() << " write(s) to " << system << ":";
        for (const RaceStep& step : steps) {
            os << " " << sim::external::to_string(step.delivery);
            if (step.delivery == CallDelivery::late) os << "(by " << step.late_by_calls << ")";
        }
    }
};

struct Advance final : Command {
    int64_t millis;
    explicit Advance(const ContractModel&)
        : millis(*rc::gen::element<int64_t>(10, 100, 300, 1000)) {}
    void run(const ContractModel&, ContractHarness& h) const override {
        h.advance(millis);
        check_now(h);
    }
    void show(std::ostream& os) const override { os << "let " << millis << " ms pass"; }
};

template <typename C>
rc::Gen<std::shared_ptr<const Command>> make_command(const ContractModel& m) {
    return rc::gen::exec([m] { return std::shared_ptr<const Command>(std::make_shared<C>(m)); });
}

}  // namespace

void check_now(ContractHarness& harness) {
    if (auto v = harness.check()) {
        const std::string the_sink_broke_the_contract =
            *v + "\n\nWhat happened (the shrunk run, step by step):\n" + harness.log();
        RC_FAIL(the_sink_broke_the_contract);
    }
}

rc::Gen<std::shared_ptr<const ContractCommand>> next_command(const ContractModel& model) {
    using Maker = rc::Gen<std::shared_ptr<const Command>> (*)(const ContractModel&);
    using Slots = std::vector<std::pair<int, Maker>>;
    // The slots of the last model (held, so that its address cannot be reused by another one).
    static thread_local std::pair<std::shared_ptr<const ModelData>, std::shared_ptr<const Slots>>
        cached;
    const ModelData& m = *model.data;
    if (cached.first != model.data) {
        int fault_weight = 0;
        for (int w : m.fault_weights) fault_weight += w;
        cached = {
            model.data,
            std::make_shared<const Slots>(Slots{
                {12, make_command<Write>},
                {12, make_command<PreCommit>},  // one per subtask before a checkpoint can complete
                {8, make_command<Complete>},
                {4, make_command<Advance>},
                {m.weight("notification_late") > 0 ? 4 : 0, make_command<DeliverLate>},
                {4 * m.weight("crash"), make_command<Crash>},
                {m.points.empty() ? 0 : 4 * m.weight("crash_at_point"), make_command<CrashAtPoint>},
                {4 * m.weight("zombie"), make_command<Cancel>},
                {2 * m.weight("stop_with_savepoint"), make_command<StopWithSavepoint>},
                {3 * m.weight("stop_with_savepoint"), make_command<RestoreFromSavepoint>},
                {m.weight("zombie") > 0 ? 4 : 0, make_command<ZombieWrite>},
                {m.weight("zombie") > 0 ? 4 : 0, make_command<ZombiePreCommit>},
                {m.weight("zombie") > 0 ? 3 : 0, make_command<CloseZombie>},
                {fault_weight == 0 ? 0
                                   : 4 * static_cast<int>(std::max<size_t>(1, m.faults.size() / 3)),
                 make_command<Fault>},
                {m.race_systems.empty() ? 0 : 3 * m.weight(kCallRaces), make_command<Race>},
                {m.async_calls ? 12 : 0, make_command<StepCall>},
            })};
    }
    std::shared_ptr<const Slots> slots = cached.second;
    int total = 0;
    for (const auto& slot : *slots) total += slot.first;
    return rc::gen::mapcat(uniform(total), [model, slots](int r) {
        size_t i = 0;
        while (r >= (*slots)[i].first) r -= (*slots)[i++].first;
        return (*slots)[i].second(model);
    });
}

std::string drawn_fault_kind(const ContractCommand& command) {
    if (const auto* f = dynamic_cast<const Fault*>(&command)) return f->choice.kind;
    if (dynamic_cast<const Race*>(&command) != nullptr) return kCallRaces;
    if (dynamic_cast<const Crash*>(&command) != nullptr) return "crash";
    if (dynamic_cast<const CrashAtPoint*>(&command) != nullptr) return "crash_at_point";
    if (dynamic_cast<const Cancel*>(&command) != nullptr) return "zombie";
    if (dynamic_cast<const StopWithSavepoint*>(&command) != nullptr) return "stop_with_savepoint";
    if (const auto* c = dynamic_cast<const Complete*>(&command)) {
        if (c->delivery == Delivery::lost) return "notification_lost";
        if (c->delivery == Delivery::late) return "notification_late";
    }
    return "";
}

}  // namespace eosim::testkit
