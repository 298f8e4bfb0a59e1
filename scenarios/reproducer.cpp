#include "scenarios/reproducer.h"

#include "scenarios/scenario.h"

namespace eosim::scenarios {

namespace {

std::string joined(const std::string& program, const std::vector<std::string>& arguments) {
    std::string text = program;
    for (const std::string& argument : arguments) text += " " + argument;
    return text;
}

void add_pct(const Reproducer& r, std::vector<std::string>& arguments) {
    if (r.pct_depth == 0) return;
    arguments.insert(arguments.end(), {"--pct-depth", std::to_string(r.pct_depth)});
    if (r.pct_steps != 0)
        arguments.insert(arguments.end(), {"--pct-steps", std::to_string(r.pct_steps)});
}

}  // namespace

Reproducer Reproducer::of(const Scenario& scenario, uint64_t seed) {
    Reproducer r;
    r.file = scenario.source.string();
    r.seed = seed;
    return r;
}

std::vector<std::string> Reproducer::arguments() const {
    std::vector<std::string> arguments = {"run", file};
    if (!twin.empty()) arguments.insert(arguments.end(), {"--twin", twin});
    arguments.insert(arguments.end(), {"--seed", std::to_string(seed)});
    if (!expect.empty()) arguments.insert(arguments.end(), {"--expect", expect});
    add_pct(*this, arguments);
    for (const std::string& at : savepoint_at)
        arguments.insert(arguments.end(), {"--savepoint-at", at});
    if (strict_faults) arguments.emplace_back("--strict-faults");
    return arguments;
}

std::string Reproducer::text() const { return joined(program, arguments()); }

std::string Reproducer::pct_options() const {
    std::vector<std::string> arguments;
    add_pct(*this, arguments);
    return arguments.empty() ? std::string() : joined("", arguments);
}

std::string Reproducer::shrink_text() const {
    return program + " shrink " + file + " --seed " + std::to_string(seed) + pct_options();
}

}  // namespace eosim::scenarios
