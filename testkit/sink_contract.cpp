#include "testkit/sink_contract.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "testkit/contract_harness.h"

namespace eosim::testkit {

namespace {

// The model of rc::state: what the command generator may rely on. Everything that depends on the
// sink's answers (which checkpoints pre-committed, whether an instance failed) lives in the
// harness, so every command is valid in every state and a shrunk sequence stays runnable.
struct ContractModel {
    bool zombies = true;
    bool outside_faults = true;
    int keys = 4;
};

using Command = rc::state::Command<ContractModel, ContractHarness>;

void check_now(ContractHarness& harness) {
    if (auto v = harness.check()) {
        const std::string the_sink_broke_the_contract = *v + "\n\nWhat happened (the shrunk run, step by step):\n" + harness.log();
        RC_FAIL(the_sink_broke_the_contract);
    }
}

struct Write final : Command {
    std::vector<int32_t> keys;
    explicit Write(const ContractModel& m)
        : keys(*rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<int32_t>>(
              rc::gen::inRange<int32_t>(0, m.keys))))) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.write(keys); check_now(h); }
    void show(std::ostream& os) const override {
        os << "write " << keys.size() << " record(s), keys";
        for (int32_t k : keys) os << " k" << k;
    }
};

struct PreCommit final : Command {
    explicit PreCommit(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.pre_commit(); check_now(h); }
    void show(std::ostream& os) const override { os << "pre-commit the next checkpoint"; }
};

struct Complete final : Command {
    int32_t pick;
    Delivery delivery;
    explicit Complete(const ContractModel&)
        : pick(*rc::gen::weightedOneOf<int32_t>({{4, rc::gen::just<int32_t>(0)}, {1, rc::gen::inRange<int32_t>(1, 4)}})),
          delivery(*rc::gen::weightedElement<Delivery>({{5, Delivery::now}, {1, Delivery::lost}, {1, Delivery::late}})) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.complete(pick, delivery); check_now(h); }
    void show(std::ostream& os) const override {
        os << "complete the " << (pick == 0 ? std::string("latest") : std::to_string(pick) + "-th latest")
           << " pre-committed checkpoint, notification " << to_string(delivery);
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

struct Cancel final : Command {
    explicit Cancel(const ContractModel&) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.cancel(); check_now(h); }
    void show(std::ostream& os) const override { os << "cancel (the old instance becomes a zombie), restore"; }
};

struct ZombieWrite final : Command {
    int32_t records;
    explicit ZombieWrite(const ContractModel&) : records(*rc::gen::inRange<int32_t>(1, 4)) {}
    void checkPreconditions(const ContractModel& m) const override { RC_PRE(m.zombies); }
    void run(const ContractModel&, ContractHarness& h) const override { h.zombie_write(records); check_now(h); }
    void show(std::ostream& os) const override { os << "the zombie writes " << records << " record(s)"; }
};

struct ZombiePreCommit final : Command {
    explicit ZombiePreCommit(const ContractModel&) {}
    void checkPreconditions(const ContractModel& m) const override { RC_PRE(m.zombies); }
    void run(const ContractModel&, ContractHarness& h) const override { h.zombie_pre_commit(); check_now(h); }
    void show(std::ostream& os) const override { os << "the zombie pre-commits"; }
};

struct Fault final : Command {
    FaultSystem system;
    FaultKind kind;
    int64_t millis;
    explicit Fault(const ContractModel&)
        : system(*rc::gen::element(FaultSystem::kafka, FaultSystem::append_store, FaultSystem::objects,
                                   FaultSystem::documents, FaultSystem::key_values)),
          kind(*rc::gen::element(FaultKind::unavailable, FaultKind::write_errors)),
          millis(*rc::gen::element<int64_t>(100, 500, 2000)) {}
    void checkPreconditions(const ContractModel& m) const override { RC_PRE(m.outside_faults); }
    void run(const ContractModel&, ContractHarness& h) const override { h.fault(system, kind, millis); check_now(h); }
    void show(std::ostream& os) const override {
        os << "fault: " << to_string(system) << " " << to_string(kind) << " for " << millis << " ms";
    }
};

struct Advance final : Command {
    int64_t millis;
    explicit Advance(const ContractModel&) : millis(*rc::gen::element<int64_t>(10, 100, 300, 1000)) {}
    void run(const ContractModel&, ContractHarness& h) const override { h.advance(millis); check_now(h); }
    void show(std::ostream& os) const override { os << "let " << millis << " ms pass"; }
};

class ContractSinkWorld final : public engine::SinkWorld {
public:
    explicit ContractSinkWorld(std::vector<std::string>* asked) : asked_(asked) {}
    std::vector<std::string> topics() const override { return {"output"}; }
    std::vector<std::string> source_topics() const override { return {"input"}; }
    bool has_system(const std::string& system) const override {
        if (system == "kafka" || system == "append_store") return true;
        if (system != "objects" && system != "documents" && system != "key_values") return false;
        if (asked_ != nullptr && std::find(asked_->begin(), asked_->end(), system) == asked_->end()) asked_->push_back(system);
        return true;
    }

private:
    std::vector<std::string>* asked_;
};

}  // namespace

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
    const auto config = configure_sink(options);
    return [config, options] {
        const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1'000'000'000);
        const ContractModel model{options.zombies, options.outside_faults, std::max(1, options.keys)};
        const auto commands = *rc::state::gen::commands(
            model, rc::state::gen::execOneOfWithArgs<Write, Write, Write, PreCommit, PreCommit, Complete, Complete,
                                                     DeliverLate, Crash, Cancel, ZombieWrite, ZombiePreCommit, Fault,
                                                     Advance>());
        ContractHarness harness(config, options, seed);
        harness.start();
        check_now(harness);
        rc::state::runAll(commands, model, harness);
        harness.finish();
        if (auto v = harness.check_final()) {
            const std::string the_sink_broke_the_contract =
                *v + "\n\nWhat happened (the shrunk run, step by step; world seed " + std::to_string(seed) + "):\n" + harness.log();
            RC_FAIL(the_sink_broke_the_contract);
        }
    };
}

ContractResult check_sink_contract(const ContractOptions& options) {
    rc::detail::TestParams params;
    params.seed = options.seed;
    params.maxSuccess = options.cases;
    params.maxSize = options.max_size;
    rc::detail::TestMetadata metadata;
    metadata.id = "sink contract: " + options.sink;
    metadata.description = metadata.id;
    const auto result = rc::detail::checkTestable(sink_contract_property(options), metadata, params);
    ContractResult out;
    std::ostringstream report;
    rc::detail::printResultMessage(result, report);
    out.report = report.str();
    if (result.template is<rc::detail::SuccessResult>()) {
        out.passed = true;
        out.cases = result.template get<rc::detail::SuccessResult>().numSuccess;
    } else if (result.template is<rc::detail::FailureResult>()) {
        out.cases = result.template get<rc::detail::FailureResult>().numSuccess;
    }
    return out;
}

}  // namespace eosim::testkit
