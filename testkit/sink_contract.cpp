#include "testkit/sink_contract.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/connectors/sink_points.h"
#include "testkit/contract_harness.h"

namespace eosim::testkit {

namespace {

// The model of rc::state: what the command generator may rely on -- the commands to draw and
// their weights. Everything that depends on the sink's answers (which checkpoints pre-committed,
// whether an instance failed) lives in the harness, so every command is valid in every state and
// a shrunk sequence stays runnable.
struct ModelData {
    int keys = 4;
    int32_t parallelism = 1;             // the most subtasks an incarnation runs (ContractOptions::parallelism)
    std::map<std::string, int> weights;  // engine fault kinds -> weight (crash, zombie, ...)
    std::vector<FaultChoice> faults;     // outside-system faults (but races)
    std::vector<int> fault_weights;      // per entry of `faults`
    std::vector<std::string> race_systems;  // systems whose writes race (system_call_races)
    std::vector<std::string> points;     // crash_at_point targets
    bool async_calls = false;            // the sink calls asynchronously (ContractOptions::async_calls, or the probe)
    int weight(const std::string& kind) const {
        auto it = weights.find(kind);
        return it == weights.end() ? 0 : it->second;
    }
};

constexpr const char* kCallRaces = "system_call_races";

// rapidcheck copies the model at every step of generation and shrinking: it shares its data.
struct ContractModel {
    std::shared_ptr<const ModelData> data = std::make_shared<const ModelData>();
    const ModelData* operator->() const { return data.get(); }
};

using Command = rc::state::Command<ContractModel, ContractHarness>;

// A value in [0, total), uniform at every size (rapidcheck's inRange favours small values at small
// sizes, which would starve the commands and fault choices listed last); shrinks towards 0.
rc::Gen<int> uniform(int total) { return rc::gen::resize(100, rc::gen::inRange<int>(0, total)); }

// Which subtask a command addresses: drawn in [0, parallelism); the harness takes it modulo the
// number of subtasks running then, so a shrunk sequence stays runnable.
rc::Gen<int32_t> subtask_pick(const ContractModel& m) { return rc::gen::resize(100, rc::gen::inRange<int32_t>(0, m->parallelism)); }

void show_subtask(std::ostream& os, const ContractModel& m, int32_t subtask) {
    if (m->parallelism > 1) os << "subtask " << subtask << " (modulo the subtasks running): ";
}

void check_now(ContractHarness& harness) {
    if (auto v = harness.check()) {
        const std::string the_sink_broke_the_contract = *v + "\n\nWhat happened (the shrunk run, step by step):\n" + harness.log();
        RC_FAIL(the_sink_broke_the_contract);
    }
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
    void run(const ContractModel&, ContractHarness& h) const override { h.write(subtask, keys); check_now(h); }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "write the job's next " << keys.size() << " record(s) (replayed ones first; new ones get keys";
        for (int32_t k : keys) os << " k" << k;
        os << ")";
    }
};

// Which asynchronous call in flight takes a step (modulo those in flight, oldest first); shrinks towards the oldest.
rc::Gen<int32_t> call_pick() { return rc::gen::resize(100, rc::gen::inRange<int32_t>(0, 8)); }

struct PreCommit final : Command {
    ContractModel model;
    int32_t subtask;  // among the subtasks that have not pre-committed the checkpoint in flight
    std::vector<int32_t> call_picks;  // while it waits for its calls: which call takes each step (then the oldest)
    explicit PreCommit(const ContractModel& m)
        : model(m),
          subtask(*subtask_pick(m)),
          call_picks(m->async_calls ? *rc::gen::resize(8, rc::gen::container<std::vector<int32_t>>(call_pick())) : std::vector<int32_t>{}) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.pre_commit(subtask, call_picks); check_now(h); }
    void show(std::ostream& os) const override {
        if (model->parallelism > 1) os << "subtask " << subtask << " (modulo the subtasks still waiting for the barrier): ";
        os << "pre-commit the checkpoint in flight (or the next one)";
        if (!call_picks.empty()) {
            os << "; while it waits, calls in flight step in the order";
            for (int32_t p : call_picks) os << " #" << p + 1;
        }
    }
};

// Asynchronous calls: one call in flight takes its next step (its request lands, or its answer comes).
struct StepCall final : Command {
    int32_t pick;
    explicit StepCall(const ContractModel&) : pick(*call_pick()) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.step_call(pick); check_now(h); }
    void show(std::ostream& os) const override { os << "call in flight #" << pick + 1 << " (modulo those in flight) takes a step"; }
};

struct Complete final : Command {
    int32_t pick;
    Delivery delivery;
    explicit Complete(const ContractModel& m)
        : pick(*rc::gen::weightedOneOf<int32_t>({{4, rc::gen::just<int32_t>(0)}, {1, rc::gen::inRange<int32_t>(1, 4)}})),
          delivery(*rc::gen::weightedElement<Delivery>(
              {{5, Delivery::now},
               {static_cast<size_t>(m->weight("notification_lost")), Delivery::lost},
               {static_cast<size_t>(m->weight("notification_late")), Delivery::late}})) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.complete(pick, delivery); check_now(h); }
    void show(std::ostream& os) const override {
        os << "complete the latest pre-committed checkpoint"
           << (pick == 0 ? std::string() : " but " + std::to_string(pick) + " (if there are that many)")
           << ", notification " << to_string(delivery);
    }
};

struct DeliverLate final : Command {
    int32_t pick;
    explicit DeliverLate(const ContractModel&) : pick(*rc::gen::inRange<int32_t>(0, 3)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.deliver_late(pick); check_now(h); }
    void show(std::ostream& os) const override { os << "deliver held-back notification #" << pick; }
};

struct Crash final : Command {
    explicit Crash(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.crash(); check_now(h); }
    void show(std::ostream& os) const override { os << "crash, restore from the latest completed checkpoint"; }
};

struct CrashAtPoint final : Command {
    std::string point;
    explicit CrashAtPoint(const ContractModel& m) : point(*rc::gen::elementOf(m->points)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.crash_at_point(point); check_now(h); }
    void show(std::ostream& os) const override { os << "crash at the sink's next announcement of " << point; }
};

struct Cancel final : Command {
    explicit Cancel(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.cancel(); check_now(h); }
    void show(std::ostream& os) const override { os << "cancel (the old instance becomes a zombie), restore"; }
};

struct StopWithSavepoint final : Command {
    explicit StopWithSavepoint(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.stop_with_savepoint(); check_now(h); }
    void show(std::ostream& os) const override { os << "stop with a savepoint"; }
};

struct RestoreFromSavepoint final : Command {
    int32_t parallelism;
    explicit RestoreFromSavepoint(const ContractModel& m)
        : parallelism(*rc::gen::resize(100, rc::gen::inRange<int32_t>(1, m->parallelism + 1))) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.restore_from_savepoint(parallelism); check_now(h); }
    void show(std::ostream& os) const override {
        os << "restore the stopped job from its savepoint with " << parallelism << " subtask(s)";
    }
};

struct ZombieWrite final : Command {
    ContractModel model;
    int32_t subtask;
    int32_t records;
    explicit ZombieWrite(const ContractModel& m) : model(m), subtask(*subtask_pick(m)), records(*rc::gen::inRange<int32_t>(1, 4)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.zombie_write(subtask, records); check_now(h); }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "the zombie writes " << records << " record(s)";
    }
};

struct ZombiePreCommit final : Command {
    ContractModel model;
    int32_t subtask;
    explicit ZombiePreCommit(const ContractModel& m) : model(m), subtask(*subtask_pick(m)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.zombie_pre_commit(subtask); check_now(h); }
    void show(std::ostream& os) const override {
        show_subtask(os, model, subtask);
        os << "the zombie pre-commits";
    }
};

using sim::external::CallDelivery;
using sim::external::RaceStep;

// How one raced write is delivered; shrinks towards "answered".
rc::Gen<RaceStep> race_step() {
    return rc::gen::apply([](CallDelivery delivery, int32_t late_by) { return RaceStep{delivery, late_by}; },
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
    void run(const ContractModel&, ContractHarness& h) const override { h.fault(choice, millis); check_now(h); }
    void show(std::ostream& os) const override { os << "fault: " << choice.kind << " of " << choice.system << " for " << millis << " ms"; }
};

// system_call_races: the deliveries of the next writes to one system.
struct Race final : Command {
    std::string system;
    std::vector<RaceStep> steps;
    explicit Race(const ContractModel& m)
        : system(*rc::gen::elementOf(m->race_systems)),
          steps(*rc::gen::resize(6, rc::gen::nonEmpty(rc::gen::container<std::vector<RaceStep>>(race_step())))) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.race(system, steps); check_now(h); }
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
    explicit Advance(const ContractModel&) : millis(*rc::gen::element<int64_t>(10, 100, 300, 1000)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.advance(millis); check_now(h); }
    void show(std::ostream& os) const override { os << "let " << millis << " ms pass"; }
};

template <typename C>
rc::Gen<std::shared_ptr<const Command>> make_command(const ContractModel& m) {
    return rc::gen::exec([m] { return std::shared_ptr<const Command>(std::make_shared<C>(m)); });
}

// The next command: drawn by weight (a command of weight 0 is never drawn).
rc::Gen<std::shared_ptr<const Command>> next_command(const ContractModel& model) {
    using Maker = rc::Gen<std::shared_ptr<const Command>> (*)(const ContractModel&);
    using Slots = std::vector<std::pair<int, Maker>>;
    // The slots of the last model (held, so that its address cannot be reused by another one).
    static thread_local std::pair<std::shared_ptr<const ModelData>, std::shared_ptr<const Slots>> cached;
    const ModelData& m = *model.data;
    if (cached.first != model.data) {
        int fault_weight = 0;
        for (int w : m.fault_weights) fault_weight += w;
        cached = {model.data, std::make_shared<const Slots>(Slots{
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
                          {fault_weight == 0 ? 0 : 4 * static_cast<int>(std::max<size_t>(1, m.faults.size() / 3)), make_command<Fault>},
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

class ContractSinkWorld final : public engine::SinkWorld {
public:
    explicit ContractSinkWorld(std::vector<std::string>* asked) : asked_(asked) {}
    std::vector<std::string> topics() const override { return {"output"}; }
    std::vector<std::string> source_topics() const override { return {"input"}; }
    bool has_system(const std::string& system) const override {
        const auto& known = contract_systems();
        if (std::find(known.begin(), known.end(), system) == known.end()) return false;
        if (asked_ != nullptr && std::find(asked_->begin(), asked_->end(), system) == asked_->end()) asked_->push_back(system);
        return true;
    }

private:
    std::vector<std::string>* asked_;
};

const std::vector<std::string> kEngineFaults = {"crash", "crash_at_point", "zombie", "notification_lost", "notification_late",
                                                "stop_with_savepoint"};

// The outside-system fault kinds of one system.
std::vector<std::string> system_fault_kinds(const std::string& system) {
    if (system == "kafka") return {"broker_unavailable", "kafka_write_failure", "kafka_commit_errors", "kafka_commit_outcome_unknown"};
    if (system == "append_store") return {"system_unavailable"};
    if (system == "documents") return {"system_unavailable", "system_write_errors", "bulk_partial_failure", kCallRaces};
    return {"system_unavailable", "system_write_errors", kCallRaces};
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Everything a check needs besides the options: the config, the systems it uses, the checks, the model.
struct Plan {
    std::shared_ptr<const engine::SinkConfig> config;
    std::vector<std::string> systems;
    ContractChecks checks;
    std::vector<std::string> check_names;
    ContractModel model;
};

// The probe: whether the sink makes asynchronous calls (engine::SinkContext::call) when one subtask
// writes a record of each key and pre-commits, without faults. Only then are the call steps drawn.
bool calls_asynchronously(const Plan& plan, const ContractOptions& options) {
    ContractHarness probe(plan.config, options, plan.checks, 1, nullptr);
    probe.start(1);
    std::vector<int32_t> keys;
    for (int32_t k = 0; k < std::max(1, options.keys); ++k) keys.push_back(k);
    probe.write(0, keys);
    probe.pre_commit(0);
    return probe.calls_sent() > 0;
}

Plan make_plan(const ContractOptions& options) {
    Plan plan;
    std::vector<std::string> asked;
    plan.config = configure_sink_recording(options, &asked);
    for (const std::string& s : options.systems) {
        const auto& known = contract_systems();
        if (std::find(known.begin(), known.end(), s) == known.end()) {
            throw std::invalid_argument("ContractOptions::systems: unknown system \"" + s + "\"; the testkit's: " + joined(known));
        }
    }
    if (!options.systems.empty()) {
        plan.systems = options.systems;
    } else {
        if (!plan.config->kafka_topic().empty()) plan.systems.push_back("kafka");
        for (const std::string& s : asked) plan.systems.push_back(s);
        if (plan.systems.empty()) plan.systems = contract_systems();  // the kind named none: any of them
    }
    plan.check_names = contract_checks(options, plan.config->output_shape());
    for (const std::string& c : plan.check_names) {
        if (c == "visibility") plan.checks.visibility = true;
        if (c == "exactly_once_output") plan.checks.exactly_once = true;
        if (c == "at_least_once_output") plan.checks.at_least_once = true;
        if (c == "no_key_backwards") plan.checks.no_key_backwards = true;
        if (c == "no_leaks") plan.checks.no_leaks = true;
    }

    // Fault kinds: the applicable ones, then the user's choice.
    std::map<std::string, std::vector<std::string>> kind_systems;  // outside kind -> systems it applies to
    for (const std::string& system : plan.systems) {
        for (const std::string& kind : system_fault_kinds(system)) kind_systems[kind].push_back(system);
    }
    std::map<std::string, int> weights;
    for (const std::string& k : kEngineFaults) {
        if (k != "zombie" || options.zombies) weights[k] = 1;
    }
    if (options.outside_faults) {
        for (const auto& [kind, systems] : kind_systems) {
            if (kind != kCallRaces || options.races) weights[kind] = 1;
        }
    }
    if (!options.faults.empty()) {
        std::set<std::string> known(kEngineFaults.begin(), kEngineFaults.end());
        for (const std::string& s : contract_systems()) {
            for (const std::string& k : system_fault_kinds(s)) known.insert(k);
        }
        std::map<std::string, int> chosen;
        for (const auto& [kind, weight] : options.faults) {
            if (!known.contains(kind)) {
                throw std::invalid_argument("ContractOptions::faults: unknown fault kind \"" + kind + "\"; the contract level's: " +
                                            joined(std::vector<std::string>(known.begin(), known.end())));
            }
            if (weight < 0) throw std::invalid_argument("ContractOptions::faults[\"" + kind + "\"]: a weight >= 0");
            if (weight > 0 && !weights.contains(kind)) {
                throw std::invalid_argument("ContractOptions::faults: \"" + kind + "\" does not apply: the sink uses " +
                                            joined(plan.systems) + (kind == "zombie" ? " and zombies are off" : "") +
                                            (kind == kCallRaces ? " (and races are off, or none of them races)" : "") +
                                            " (ContractOptions::systems names the systems whose faults are drawn)");
            }
            if (weight > 0) chosen[kind] = weight;
        }
        weights = chosen;
    }
    auto data = std::make_shared<ModelData>();
    data->keys = std::max(1, options.keys);
    if (options.parallelism < 1) throw std::invalid_argument("ContractOptions::parallelism: at least 1 subtask");
    data->parallelism = options.parallelism;
    for (const auto& [kind, weight] : weights) {
        auto it = kind_systems.find(kind);
        if (it == kind_systems.end() || kind == kCallRaces) {
            data->weights[kind] = weight;
            if (kind == kCallRaces) data->race_systems = it->second;
            continue;
        }
        for (const std::string& system : it->second) {
            data->faults.push_back(FaultChoice{kind, system});
            data->fault_weights.push_back(weight * 60 / static_cast<int>(it->second.size()));
        }
    }
    data->async_calls = options.async_calls.value_or(false) || (!options.async_calls && calls_asynchronously(plan, options));
    if (options.points.empty()) {
        for (std::string_view p : engine::sink_points::kAll) data->points.emplace_back(p);
    } else {
        data->points = options.points;
    }
    plan.model.data = std::move(data);
    return plan;
}

std::function<void()> property_of(const Plan& plan, const ContractOptions& options, std::shared_ptr<FaultPaths> paths) {
    return [plan, options, paths] {
        const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1'000'000'000);
        // Half the cases run one subtask (the single-subtask paths keep their share), half 2..parallelism.
        const int32_t most = plan.model->parallelism;
        const auto parallelism = most == 1 ? 1
                                           : *rc::gen::weightedOneOf<int32_t>(
                                                 {{1, rc::gen::just<int32_t>(1)}, {1, rc::gen::resize(100, rc::gen::inRange<int32_t>(2, most + 1))}});
        const auto commands = *rc::state::gen::commands(plan.model, next_command);
        ContractChecks checks = plan.checks;
        checks.crash_before_final = plan.model->async_calls;
        ContractHarness harness(plan.config, options, checks, seed, paths.get());
        harness.start(parallelism);
        check_now(harness);
        for (const auto& command : commands) {
            const std::string& kind = [&]() -> const std::string& {
                static const std::string none;
                if (const auto* f = dynamic_cast<const Fault*>(command.get())) return f->choice.kind;
                return none;
            }();
            if (!kind.empty()) ++paths->drawn[kind];
            if (dynamic_cast<const Race*>(command.get()) != nullptr) ++paths->drawn[kCallRaces];
            if (dynamic_cast<const Crash*>(command.get()) != nullptr) ++paths->drawn["crash"];
            if (dynamic_cast<const CrashAtPoint*>(command.get()) != nullptr) ++paths->drawn["crash_at_point"];
            if (dynamic_cast<const Cancel*>(command.get()) != nullptr) ++paths->drawn["zombie"];
            if (dynamic_cast<const StopWithSavepoint*>(command.get()) != nullptr) ++paths->drawn["stop_with_savepoint"];
            if (const auto* c = dynamic_cast<const Complete*>(command.get())) {
                if (c->delivery == Delivery::lost) ++paths->drawn["notification_lost"];
                if (c->delivery == Delivery::late) ++paths->drawn["notification_late"];
            }
        }
        rc::state::runAll(commands, plan.model, harness);
        harness.finish();
        if (auto v = harness.check_final()) {
            const std::string the_sink_broke_the_contract =
                *v + "\n\nWhat happened (the shrunk run, step by step; world seed " + std::to_string(seed) + "):\n" + harness.log();
            RC_FAIL(the_sink_broke_the_contract);
        }
    };
}

// The fault-path report; `missing` gets what was requested and never exercised.
std::string fault_path_report(const ContractOptions& options, const Plan& plan, const FaultPaths& paths,
                              std::vector<std::string>* missing) {
    std::ostringstream out;
    out << "fault paths (over every case run, shrinking included; sink uses " << joined(plan.systems) << "; checks "
        << joined(plan.check_names) << "):\n";
    std::set<std::string> kinds;
    for (const auto& [kind, w] : plan.model->weights) {
        if (w > 0) kinds.insert(kind);
    }
    for (const FaultChoice& f : plan.model->faults) kinds.insert(f.kind);
    for (const std::string& kind : kinds) {
        auto it = paths.drawn.find(kind);
        const int64_t drawn = it == paths.drawn.end() ? 0 : it->second;
        out << "  " << kind << ": drawn " << drawn << "\n";
        if (drawn == 0 && options.faults.contains(kind)) missing->push_back("fault kind " + kind + " was never drawn");
    }
    for (const auto& [effect, count] : paths.effects) out << "  " << effect << ": " << count << "\n";
    out << "sink points announced:";
    if (paths.announced.empty()) out << " none";
    for (const auto& [point, count] : paths.announced) out << " " << point << " x" << count;
    out << "\n";
    std::vector<std::string> silent;
    for (const std::string& p : plan.model->points) {
        if (!paths.announced.contains(p)) silent.push_back(p);
    }
    if (!silent.empty() && plan.model->weight("crash_at_point") > 0) {
        out << "  the sink never announced " << joined(silent)
            << ": crashes aimed there never fired (announce a point with eosim::engine::announce_point, "
               "engine/connectors/sink_points.h)\n";
        if (!options.points.empty()) {
            for (const std::string& p : silent) missing->push_back("point " + p + " was never announced by the sink");
        }
    }
    return out.str();
}

}  // namespace

const char* to_string(Guarantee guarantee) {
    return guarantee == Guarantee::exactly_once ? "exactly_once" : "at_least_once";
}

std::vector<std::string> contract_checks(const ContractOptions& options, engine::SinkOutputShape shape) {
    if (shape == engine::SinkOutputShape::key_counts) {
        // Its sinks name records by their source identity (sink_registry.h), which the contract
        // level's commands do not carry: only a job reading Kafka gives records one.
        throw std::invalid_argument("the sink's output is key counts (it names records by their source offset): the "
                                    "contract level, whose commands carry no source offsets, does not judge it");
    }
    const bool table = shape == engine::SinkOutputShape::keyed_table;
    if (!options.oracles.empty()) {
        const std::vector<std::string> known = {"exactly_once_output", "at_least_once_output", "visibility", "no_key_backwards",
                                                "no_leaks"};
        for (const std::string& name : options.oracles) {
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                throw std::invalid_argument("ContractOptions::oracles: \"" + name + "\" is not a contract-level check; known: " +
                                            joined(known));
            }
            if (name == "no_key_backwards" && !table) {
                throw std::invalid_argument("ContractOptions::oracles: no_key_backwards judges a keyed table; the sink's output is appended");
            }
        }
        return options.oracles;
    }
    std::vector<std::string> out;
    const bool exactly_once = options.guarantee == Guarantee::exactly_once;
    out.emplace_back(exactly_once ? "exactly_once_output" : "at_least_once_output");
    if (table && exactly_once) out.emplace_back("no_key_backwards");
    const Visibility visibility =
        options.visibility.value_or(!table && exactly_once ? Visibility::committed_only : Visibility::eventually);
    if (visibility == Visibility::committed_only) out.emplace_back("visibility");
    return out;
}

std::shared_ptr<const engine::SinkConfig> configure_sink(const ContractOptions& options) {
    return configure_sink_recording(options, nullptr);
}

std::shared_ptr<const engine::SinkConfig> configure_sink_recording(const ContractOptions& options,
                                                                   std::vector<std::string>* systems_asked) {
    if (options.config) return options.config;
    const engine::SinkKind* kind = engine::SinkRegistry::global().find(options.sink);
    if (kind == nullptr) {
        std::string names;
        for (const std::string& n : engine::SinkRegistry::global().names()) names += " " + n;
        throw std::invalid_argument("unknown sink kind \"" + options.sink + "\"; registered:" + names);
    }
    nlohmann::json json = options.options.is_null() ? nlohmann::json::object() : options.options;
    if (options.sink == "kafka" && !json.contains("topic")) json["topic"] = "output";
    try {
        engine::SinkOptions reader(json);
        auto config = kind->configure(reader, "sink", ContractSinkWorld(systems_asked));
        reader.finish();
        return config;
    } catch (const engine::SinkOptionsError& e) {
        throw std::invalid_argument("sink \"" + options.sink + "\" options" + e.path() + ": " + e.expected());
    }
}

std::function<void()> sink_contract_property(const ContractOptions& options) {
    return property_of(make_plan(options), options, std::make_shared<FaultPaths>());
}

ContractResult check_sink_contract(const ContractOptions& options) {
    const Plan plan = make_plan(options);
    auto paths = std::make_shared<FaultPaths>();
    rc::detail::TestParams params;
    params.seed = options.seed;
    params.maxSuccess = options.cases;
    params.maxSize = options.max_size;
    rc::detail::TestMetadata metadata;
    metadata.id = "sink contract: " + options.sink;
    metadata.description = metadata.id;
    const auto result = rc::detail::checkTestable(property_of(plan, options, paths), metadata, params);
    ContractResult out;
    const std::string name = options.config ? std::string("under test") : "\"" + options.sink + "\"";
    std::ostringstream report;
    if (result.template is<rc::detail::SuccessResult>()) {
        out.passed = true;
        out.cases = result.template get<rc::detail::SuccessResult>().numSuccess;
        report << "sink " << name << " kept the contract in " << out.cases << " cases (" << to_string(options.guarantee) << ")\n";
    } else if (result.template is<rc::detail::FailureResult>()) {
        const auto& failure = result.template get<rc::detail::FailureResult>();
        out.cases = failure.numSuccess;
        // rapidcheck puts the testkit's own source location first: not the user's business.
        std::string description = failure.description;
        const std::string marker = "RC_FAIL(the_sink_broke_the_contract)";
        if (const size_t at = description.find(marker); at != std::string::npos) {
            description.erase(0, description.find_first_not_of("\n ", at + marker.size()));
        }
        report << "sink " << name << " BROKE the contract after " << out.cases << " passing case(s):\n"
               << description << "\n\nThe commands (shrunk):\n";
        for (size_t i = 1; i < failure.counterExample.size(); ++i) report << failure.counterExample[i].second << "\n";
        report << "\nReplay: run " << (options.program.empty() ? std::string("<your test binary>") : options.program)
               << " again with the same options (ContractOptions::seed = " << options.seed << ", cases = " << options.cases
               << "): the same seed finds the same case (the world seed above is drawn from it).\n";
    } else {
        std::ostringstream other;
        rc::detail::printResultMessage(result, other);
        report << other.str();
    }
    std::vector<std::string> missing;
    out.fault_paths = fault_path_report(options, plan, *paths, &missing);
    out.faults_drawn = paths->drawn;
    out.points_announced = paths->announced;
    if (out.passed && options.require_requested && !missing.empty()) {
        out.passed = false;
        report << "FAILED: what was asked for was not exercised: " << joined(missing) << "\n";
    }
    out.report = report.str() + out.fault_paths;
    return out;
}

}  // namespace eosim::testkit
