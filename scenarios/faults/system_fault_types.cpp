// The generic outside-system fault types: system_unavailable, system_write_errors,
// bulk_partial_failure, system_call_races (scenarios/fault_types.h). Their firings:
// sim/faults/system_faults.cpp.
#include "scenarios/fault_json.h"
#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

namespace {

// A fault of one outside system (`system`; drawn from `systems`) for `duration`, with a ratio when
// it fails or races a share of the calls.
class SystemFaultType final : public FaultType {
public:
    std::string timeline_lane() const override { return "outside systems"; }
    struct Words {
        const char* hit_unit;
        const char* nothing_hit;  // after "no call to <system> failed: " or its own
        const char* testkit;      // nullptr: the kind's name
    };
    SystemFaultType(sim::FaultKind kind, SystemTarget target, bool ratio, Words words)
        : FaultType(builtin_firing(kind)), target_(target), ratio_(ratio), words_(words) {}

    std::vector<std::string> keys(FaultUse use) const override {
        std::vector<std::string> keys{use == FaultUse::scheduled ? "system" : "systems"};
        if (ratio_) keys.push_back("ratio");
        keys.push_back("duration");
        return keys;
    }
    SystemTarget system_target() const override { return target_; }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        j["system"] = fault.system;
        if (ratio_) j["ratio"] = ratio_text(fault.ratio);
        j["duration"] = format_duration_exact(fault.duration);
    }
    RatioRange default_ratio() const override { return {sim::Ratio{1, 10}, sim::Ratio{1, 2}}; }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        fault.system = pick(kind.systems, prng);
        if (ratio_) fault.ratio = draw_ratio(kind.ratio, prng);
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    // A raced write's caller sees a timeout: a failed call.
    int64_t counter(const FaultCounters& c, const sim::FaultSpec& spec) const override {
        return c.probes.system_failed_calls
                   ? static_cast<int64_t>(c.probes.system_failed_calls(spec.system))
                   : 0;
    }
    std::string hit_unit() const override { return words_.hit_unit; }
    std::string nothing_hit(const sim::FaultSpec& spec) const override {
        if (target_ == SystemTarget::races)
            return "no write to " + spec.system + " raced: " + words_.nothing_hit;
        return "no call to " + spec.system + " failed: " + words_.nothing_hit;
    }
    std::string testkit_words() const override {
        return words_.testkit == nullptr ? name() : words_.testkit;
    }

private:
    SystemTarget target_;
    bool ratio_;
    Words words_;
};

}  // namespace

const FaultType& system_unavailable_type() {
    static const SystemFaultType type(
        sim::FaultKind::system_unavailable, SystemTarget::any, false,
        {"calls failed", "nobody called it while it lasted", "unavailable"});
    return type;
}

const FaultType& system_write_errors_type() {
    static const SystemFaultType type(
        sim::FaultKind::system_write_errors, SystemTarget::any, false,
        {"calls failed", "nobody called it while it lasted", "write errors"});
    return type;
}

const FaultType& bulk_partial_failure_type() {
    static const SystemFaultType type(sim::FaultKind::bulk_partial_failure, SystemTarget::batches,
                                      true,
                                      {"calls failed", "nobody called it while it lasted",
                                       "half of every bulk request's items fail"});
    return type;
}

const FaultType& system_call_races_type() {
    static const SystemFaultType type(
        sim::FaultKind::system_call_races, SystemTarget::races, true,
        {"calls failed or raced", "nobody wrote to it while it lasted, or no draw hit", nullptr});
    return type;
}

}  // namespace eosim::scenarios
