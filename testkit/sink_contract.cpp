#include "testkit/sink_contract.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/connectors/sink_points.h"
#include "testkit/contract_commands.h"
#include "testkit/contract_harness.h"

namespace eosim::testkit {

namespace {

class ContractSinkWorld final : public engine::SinkWorld {
public:
    explicit ContractSinkWorld(std::vector<std::string>* asked) : asked_(asked) {}
    std::vector<std::string> topics() const override { return {"output"}; }
    std::vector<std::string> source_topics() const override { return {"input"}; }
    bool has_system(const std::string& system) const override {
        const auto& known = contract_systems();
        if (std::find(known.begin(), known.end(), system) == known.end()) return false;
        if (asked_ != nullptr && std::find(asked_->begin(), asked_->end(), system) == asked_->end())
            asked_->push_back(system);
        return true;
    }

private:
    std::vector<std::string>* asked_;
};

const std::vector<std::string> kEngineFaults = {"crash",
                                                "crash_at_point",
                                                "zombie",
                                                "notification_lost",
                                                "notification_late",
                                                "stop_with_savepoint"};

// The outside-system fault kinds of one system.
std::vector<std::string> system_fault_kinds(const std::string& system) {
    if (system == "kafka")
        return {"broker_unavailable", "kafka_write_failure", "kafka_commit_errors",
                "kafka_commit_outcome_unknown"};
    if (system == "append_store") return {"system_unavailable"};
    if (system == "documents")
        return {"system_unavailable", "system_write_errors", "bulk_partial_failure", kCallRaces};
    return {"system_unavailable", "system_write_errors", kCallRaces};
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Everything a check needs besides the options: the config, the systems it uses, the checks, the
// model.
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
    std::vector<int32_t> keys;
    for (int32_t k = 0; k < std::max(1, options.keys); ++k) keys.push_back(k);
    try {
        probe.start(1);
        probe.write(0, keys);
        probe.pre_commit(0);
    } catch (const std::exception&) {
        // A sink that breaks its contract here (e.g. announces an undeclared point) breaks it in
        // the cases too, where the property reports it: the probe only asks whether it calls
        // asynchronously.
    }
    return probe.calls_sent() > 0;
}

// The outside systems the cases use: the user's choice (checked), else the sink's Kafka topic and
// the systems the kind asked for, else every one the testkit has.
std::vector<std::string> plan_systems(const ContractOptions& options,
                                      const std::vector<std::string>& asked,
                                      const engine::SinkConfig& config) {
    const auto& known = contract_systems();
    for (const std::string& s : options.systems) {
        if (std::find(known.begin(), known.end(), s) == known.end()) {
            throw std::invalid_argument("ContractOptions::systems: unknown system \"" + s +
                                        "\"; the testkit's: " + joined(known));
        }
    }
    if (!options.systems.empty()) return options.systems;
    std::vector<std::string> systems;
    if (!config.kafka_topic().empty()) systems.push_back("kafka");
    for (const std::string& s : asked) systems.push_back(s);
    return systems.empty() ? known : systems;  // the kind named none: any of them
}

// The contract checks by oracle name (contract_checks), as the flags the harness reads.
ContractChecks checks_named(const std::vector<std::string>& names) {
    ContractChecks checks;
    for (const std::string& c : names) {
        if (c == "visibility") checks.visibility = true;
        if (c == "exactly_once_output") checks.exactly_once = true;
        if (c == "at_least_once_output") checks.at_least_once = true;
        if (c == "no_key_backwards") checks.no_key_backwards = true;
        if (c == "no_leaks") checks.no_leaks = true;
        if (c == "freshness") checks.freshness = true;
    }
    return checks;
}

// The user's fault weights (ContractOptions::faults), each kind checked: known, weight >= 0, and
// applicable (among `applicable`, the kinds drawn by default).
std::map<std::string, int> chosen_weights(const ContractOptions& options, const Plan& plan,
                                          const std::map<std::string, int>& applicable) {
    std::set<std::string> known(kEngineFaults.begin(), kEngineFaults.end());
    for (const std::string& s : contract_systems()) {
        for (const std::string& k : system_fault_kinds(s)) known.insert(k);
    }
    std::map<std::string, int> chosen;
    for (const auto& [kind, weight] : options.faults) {
        if (!known.contains(kind)) {
            throw std::invalid_argument(
                "ContractOptions::faults: unknown fault kind \"" + kind +
                "\"; the contract level's: " +
                joined(std::vector<std::string>(known.begin(), known.end())));
        }
        if (weight < 0)
            throw std::invalid_argument("ContractOptions::faults[\"" + kind + "\"]: a weight >= 0");
        if (weight > 0 && !applicable.contains(kind)) {
            throw std::invalid_argument(
                "ContractOptions::faults: \"" + kind + "\" does not apply: the sink uses " +
                joined(plan.systems) + (kind == "zombie" ? " and zombies are off" : "") +
                (kind == kCallRaces ? " (and races are off, or none of them races)" : "") +
                " (ContractOptions::systems names the systems whose faults are drawn)");
        }
        if (weight > 0) chosen[kind] = weight;
    }
    return chosen;
}

// The fault kinds the cases draw and their weights: the applicable ones, then the user's choice;
// `kind_systems`: each outside kind -> the plan's systems it applies to.
std::map<std::string, int> fault_weights(
    const ContractOptions& options, const Plan& plan,
    const std::map<std::string, std::vector<std::string>>& kind_systems) {
    std::map<std::string, int> weights;
    for (const std::string& k : kEngineFaults) {
        if (k != "zombie" || options.zombies) weights[k] = 1;
    }
    if (options.outside_faults) {
        for (const auto& [kind, systems] : kind_systems) {
            if (kind != kCallRaces || options.races) weights[kind] = 1;
        }
    }
    return options.faults.empty() ? weights : chosen_weights(options, plan, weights);
}

Plan make_plan(const ContractOptions& options) {
    Plan plan;
    std::vector<std::string> asked;
    plan.config = configure_sink_recording(options, &asked);
    plan.systems = plan_systems(options, asked, *plan.config);
    plan.check_names =
        contract_checks(options, plan.config->output_shape(), !plan.config->kafka_topic().empty());
    plan.checks = checks_named(plan.check_names);
    std::map<std::string, std::vector<std::string>>
        kind_systems;  // outside kind -> systems it applies to
    for (const std::string& system : plan.systems) {
        for (const std::string& kind : system_fault_kinds(system))
            kind_systems[kind].push_back(system);
    }
    const std::map<std::string, int> weights = fault_weights(options, plan, kind_systems);
    auto data = std::make_shared<ModelData>();
    data->keys = std::max(1, options.keys);
    if (options.parallelism < 1)
        throw std::invalid_argument("ContractOptions::parallelism: at least 1 subtask");
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
    data->async_calls = options.async_calls.value_or(false) ||
                        (!options.async_calls && calls_asynchronously(plan, options));
    data->points = aimed_sink_points(*plan.config, options.points, "ContractOptions::points");
    plan.model.data = std::move(data);
    return plan;
}

std::function<void()> property_of(const Plan& plan, const ContractOptions& options,
                                  std::shared_ptr<FaultPaths> paths) {
    return [plan, options, paths] {
        const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1'000'000'000);
        // Half the cases run one subtask (the single-subtask paths keep their share),
        // half 2..parallelism.
        const int32_t most = plan.model->parallelism;
        const auto parallelism =
            most == 1 ? 1
                      : *rc::gen::weightedOneOf<int32_t>(
                            {{1, rc::gen::just<int32_t>(1)},
                             {1, rc::gen::resize(100, rc::gen::inRange<int32_t>(2, most + 1))}});
        const auto commands = *rc::state::gen::commands(plan.model, next_command);
        ContractChecks checks = plan.checks;
        checks.crash_after_checkpoint = plan.model->async_calls;
        ContractHarness harness(plan.config, options, checks, seed, paths.get());
        harness.start(parallelism);
        check_now(harness);
        for (const auto& command : commands) {
            if (const std::string kind = drawn_fault_kind(*command); !kind.empty())
                ++paths->drawn[kind];
        }
        rc::state::runAll(commands, plan.model, harness);
        harness.finish();
        if (auto v = harness.check_final()) {
            const std::string the_sink_broke_the_contract =
                *v + "\n\nWhat happened (the shrunk run, step by step; world seed " +
                std::to_string(seed) + "):\n" + harness.log();
            RC_FAIL(the_sink_broke_the_contract);
        }
    };
}

// A rapidcheck listener that prints nothing (check_sink_contract writes its own report).
class SilentListener final : public rc::detail::TestListener {
public:
    void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
    void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
    void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// The fault-path report; `missing` gets what was requested and never exercised.
std::string fault_path_report(const ContractOptions& options, const Plan& plan,
                              const FaultPaths& paths, std::vector<std::string>* missing) {
    std::ostringstream out;
    out << "fault paths (over every case run, shrinking included; sink uses "
        << joined(plan.systems) << "; checks " << joined(plan.check_names) << "):\n";
    std::set<std::string> kinds;
    for (const auto& [kind, w] : plan.model->weights) {
        if (w > 0) kinds.insert(kind);
    }
    for (const FaultChoice& f : plan.model->faults) kinds.insert(f.kind);
    for (const std::string& kind : kinds) {
        auto it = paths.drawn.find(kind);
        const int64_t drawn = it == paths.drawn.end() ? 0 : it->second;
        out << "  " << kind << ": drawn " << drawn << "\n";
        if (drawn == 0 && options.faults.contains(kind))
            missing->push_back("fault kind " + kind + " was never drawn");
    }
    for (const auto& [effect, count] : paths.effects)
        out << "  " << effect << ": " << count << "\n";
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
            for (const std::string& p : silent)
                missing->push_back("point " + p + " was never announced by the sink");
        }
    }
    return out.str();
}

}  // namespace

const char* to_string(Guarantee guarantee) {
    return guarantee == Guarantee::exactly_once ? "exactly_once" : "at_least_once";
}

std::vector<std::string> contract_checks(const ContractOptions& options,
                                         engine::SinkOutputShape shape, bool writes_kafka) {
    if (shape == engine::SinkOutputShape::key_counts) {
        // Its sinks name records by their source identity (sink_registry.h), which the contract
        // level's commands do not carry: only a job reading Kafka gives records one.
        throw std::invalid_argument(
            "the sink's output is key counts (it names records by their source offset): the "
            "contract level, whose commands carry no source offsets, does not judge it");
    }
    const bool table = shape == engine::SinkOutputShape::keyed_table;
    if (!options.oracles.empty()) {
        const std::vector<std::string> known = {"exactly_once_output",
                                                "at_least_once_output",
                                                "visibility",
                                                "no_key_backwards",
                                                "no_leaks",
                                                "freshness"};
        for (const std::string& name : options.oracles) {
            if (std::find(known.begin(), known.end(), name) == known.end()) {
                throw std::invalid_argument(
                    "ContractOptions::oracles: \"" + name +
                    "\" is not a contract-level check; known: " + joined(known));
            }
            if (name == "no_key_backwards" && !table) {
                throw std::invalid_argument(
                    "ContractOptions::oracles: no_key_backwards judges a keyed table; the sink's output is appended");
            }
        }
        return options.oracles;
    }
    std::vector<std::string> out;
    const bool exactly_once = options.guarantee == Guarantee::exactly_once;
    out.emplace_back(exactly_once ? "exactly_once_output" : "at_least_once_output");
    if (table && exactly_once) out.emplace_back("no_key_backwards");
    const Visibility visibility = options.visibility.value_or(
        !table && exactly_once ? Visibility::committed_only : Visibility::eventually);
    if (visibility == Visibility::committed_only) out.emplace_back("visibility");
    if (exactly_once && writes_kafka) out.emplace_back("freshness");
    return out;
}

std::vector<std::string> aimed_sink_points(const engine::SinkConfig& config,
                                           const std::vector<std::string>& requested,
                                           const std::string& option) {
    std::vector<std::string> declared;
    for (std::string_view p : config.announced_points()) declared.emplace_back(p);
    if (requested.empty()) return declared;
    for (const std::string& point : requested) {
        const bool sink_point =
            std::find(std::begin(engine::sink_points::kAll), std::end(engine::sink_points::kAll),
                      point) != std::end(engine::sink_points::kAll);
        if (sink_point && std::find(declared.begin(), declared.end(), point) == declared.end()) {
            throw std::invalid_argument(
                option + ": the sink does not declare " + point +
                " (SinkConfig::announced_points() lists " +
                (declared.empty() ? std::string("none") : joined(declared)) +
                "): a fault placed there could never fire, and a scenario naming it is refused");
        }
    }
    return requested;
}

std::shared_ptr<const engine::SinkConfig> configure_sink(const ContractOptions& options) {
    return configure_sink_recording(options, nullptr);
}

std::shared_ptr<const engine::SinkConfig> configure_sink_recording(
    const ContractOptions& options, std::vector<std::string>* systems_asked) {
    if (options.config) return options.config;
    const engine::SinkKind* kind = engine::SinkRegistry::global().find(options.sink);
    if (kind == nullptr) {
        std::string names;
        for (const std::string& n : engine::SinkRegistry::global().names()) names += " " + n;
        throw std::invalid_argument("unknown sink kind \"" + options.sink +
                                    "\"; registered:" + names);
    }
    nlohmann::json json = options.options.is_null() ? nlohmann::json::object() : options.options;
    if (options.sink == "kafka" && !json.contains("topic")) json["topic"] = "output";
    try {
        engine::SinkOptions reader(json);
        auto config = kind->configure(reader, "sink", ContractSinkWorld(systems_asked));
        reader.finish();
        return config;
    } catch (const engine::SinkOptionsError& e) {
        throw std::invalid_argument("sink \"" + options.sink + "\" options" + e.path() + ": " +
                                    e.expected());
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
    // rapidcheck's own listener would print, at exit, an RC_PARAMS="reproduce=..." line, and its
    // configuration's reproduce map would replace the cases these options draw: the report's replay
    // line (the same options) is the one way to reproduce, so neither is used here.
    SilentListener listener;
    const auto result = rc::detail::checkProperty(
        rc::detail::toProperty(property_of(plan, options, paths)), metadata, params, listener, {});
    ContractResult out;
    const std::string name =
        options.config ? std::string("under test") : "\"" + options.sink + "\"";
    std::ostringstream report;
    if (result.template is<rc::detail::SuccessResult>()) {
        out.passed = true;
        out.cases = result.template get<rc::detail::SuccessResult>().numSuccess;
        report << "sink " << name << " kept the contract in " << out.cases << " cases ("
               << to_string(options.guarantee) << ")\n";
    } else if (result.template is<rc::detail::FailureResult>()) {
        const auto& failure = result.template get<rc::detail::FailureResult>();
        out.cases = failure.numSuccess;
        // rapidcheck puts the testkit's own source location first: not the user's business.
        std::string description = failure.description;
        const std::string marker = "RC_FAIL(the_sink_broke_the_contract)";
        if (const size_t at = description.find(marker); at != std::string::npos) {
            description.erase(0, description.find_first_not_of("\n ", at + marker.size()));
        }
        report << "sink " << name << " BROKE the contract after " << out.cases
               << " passing case(s):\n"
               << description << "\n\nThe commands (shrunk):\n";
        for (size_t i = 1; i < failure.counterExample.size(); ++i)
            report << failure.counterExample[i].second << "\n";
        report << "\nReplay: run "
               << (options.program.empty() ? std::string("<your test binary>") : options.program)
               << " again with the same options (ContractOptions::seed = " << options.seed
               << ", cases = " << options.cases
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
