// The loader's oracles and expectation sections (scenarios/loader/loader.h).
#include "oracles/oracle_registry.h"
#include "scenarios/loader/loader.h"
#include "scenarios/sensitivity.h"

namespace eosim::scenarios::loading {

// --- oracles and expectation ---

namespace {

// The registered oracle named by `v` (a string), or the error naming every registered one.
const oracles::OracleRegistration& read_oracle_name(const Value& v) {
    const oracles::OracleRegistry& registry = oracles::OracleRegistry::global();
    const std::vector<std::string> names = registry.names();
    if (v.get().is_string()) {
        const std::string text = v.get().get<std::string>();
        if (const oracles::OracleRegistration* kind = registry.find(text)) return *kind;
        v.fail("expected an oracle name, one of: " + join(names) + "; found " + describe(v.get()) +
               suggestion(text, names));
    }
    v.fail("expected an oracle name, one of: " + join(names) + "; found " + describe(v.get()));
}

}  // namespace

void Loader::read_oracles(const Value& v) {
    const bool verification = std::any_of(s_.deployments.begin(), s_.deployments.end(),
                                          [](const DeploymentSpec& d) { return d.verification; });
    for_each_element(v, "an array of oracle names", [&](const Value& element) {
        const oracles::OracleRegistration& oracle = read_oracle_name(element);
        if (std::find(s_.oracles.begin(), s_.oracles.end(), oracle.name) != s_.oracles.end()) {
            element.fail("duplicate oracle " + in_quotes(oracle.name));
        }
        const std::string needs =
            oracle.needs(oracles::OracleJobFacts{s_.job, verification, !s_.deployments.empty()});
        if (!needs.empty()) element.fail("oracle " + in_quotes(oracle.name) + " needs " + needs);
        s_.oracles.push_back(oracle.name);
    });
    if (s_.oracles.empty()) v.fail("expected at least one oracle, found an empty array");
}

// Every listed oracle must be able to judge a job that fails (its `needs` with
// expects_job_failure).
void Loader::check_oracles_judge_failure(const Value& v) {
    const bool verification = std::any_of(s_.deployments.begin(), s_.deployments.end(),
                                          [](const DeploymentSpec& d) { return d.verification; });
    for (const std::string& name : s_.oracles) {
        const oracles::OracleRegistration& oracle = *oracles::OracleRegistry::global().find(name);
        const std::string needs = oracle.needs(
            oracles::OracleJobFacts{s_.job, verification, !s_.deployments.empty(), true});
        if (!needs.empty())
            v.fail("oracle " + in_quotes(name) +
                   " listed in /oracles cannot judge a job that fails: it needs " + needs);
    }
}

void Loader::read_expect(const Value& v) {
    constexpr const char* kForm =
        "\"pass\", {\"violation\": oracle name} or {\"job_failure\": text of the error}";
    if (v.get().is_string()) {
        if (v.get().get<std::string>() != "pass") v.expected(kForm);
        s_.expect = Expectation{};
        return;
    }
    const Object o(v, {"violation", "every_seed", "job_failure"}, kForm);
    if (auto x = o.get("job_failure")) {
        if (o.has("every_seed"))
            x->fail(
                "expected \"job_failure\" without \"every_seed\" (the job fails on every seed)");
        s_.expect = Expectation{};
        s_.expect.job_failure = read_string(*x);
        check_oracles_judge_failure(*x);
        if (!o.has("violation")) return;
    }
    const Value violation = o.require("violation", "an oracle listed in /oracles");
    s_.expect.pass = false;
    s_.expect.violation = read_oracle_name(violation).name;
    if (std::find(s_.oracles.begin(), s_.oracles.end(), s_.expect.violation) == s_.oracles.end()) {
        violation.expected("an oracle listed in /oracles (" + join(s_.oracles) + ")");
    }
    if (auto x = o.get("every_seed")) s_.expect.every_seed = read_bool(*x);
}

void Loader::read_sensitivity(const Value& v, const json& document) {
    const Object o(
        v, {"skip", "reasons", "why", "targets"},
        "an object {\"skip\": [twin names], \"reasons\": [reason keys], \"why\": text, \"targets\": [twin names]}");
    if (auto targets = o.get("targets")) read_sensitivity_targets(*targets, document);
    // "reasons" and "why" explain a skip: they need one.
    if (!o.get("skip") && !o.get("reasons") && !o.get("why") && o.get("targets")) return;
    const std::vector<std::string> twins = twin_names(known_bad_twins(document));
    for_each_element(o.require("skip", "an array of known-bad twin names"),
                     "an array of known-bad twin names", [&](const Value& element) {
                         const std::string name = read_string(element);
                         if (std::find(twins.begin(), twins.end(), name) == twins.end()) {
                             element.fail("expected a known-bad twin of this scenario, one of: " +
                                          (twins.empty() ? std::string("(none)") : join(twins)) +
                                          "; found " + in_quotes(name) + suggestion(name, twins));
                         }
                         if (std::find(s_.sensitivity_skip.begin(), s_.sensitivity_skip.end(),
                                       name) != s_.sensitivity_skip.end()) {
                             element.fail("duplicate twin " + in_quotes(name));
                         }
                         s_.sensitivity_skip.push_back(name);
                     });
    std::vector<std::string> unexplained = s_.sensitivity_skip;
    if (auto reasons = o.get("reasons")) read_sensitivity_reasons(*reasons, unexplained);
    const auto why =
        unexplained.empty()
            ? o.get("why")
            : std::optional<Value>(
                  o.require("why", "a text saying why the scenario does not target " +
                                       join(unexplained) + " (no key in \"reasons\" explains it)"));
    if (!why) return;
    const std::string text = read_string(*why);
    if (text.empty())
        why->expected("a non-empty text saying why the scenario does not target these twins");
    s_.sensitivity_why += (s_.sensitivity_why.empty() ? "" : " ") + text;
}

// The registered reasons (scenarios/sensitivity.h skip_reasons) named by key, each for a skipped
// twin; their texts open the scenario's "why", and the twins they explain leave `unexplained`.
void Loader::read_sensitivity_reasons(const Value& v, std::vector<std::string>& unexplained) {
    std::vector<std::string> keys;
    for (const SkipReason& reason : skip_reasons()) keys.push_back(reason.key);
    std::vector<std::string> seen;
    for_each_element(v, "an array of reason keys", [&](const Value& element) {
        const std::string key = read_string(element);
        const SkipReason* reason = find_skip_reason(key);
        if (reason == nullptr)
            element.fail("expected a reason key, one of: " + join(keys) + "; found " +
                         in_quotes(key) + suggestion(key, keys));
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            element.fail("duplicate reason " + in_quotes(key));
        seen.push_back(key);
        const auto skipped =
            std::find_if(s_.sensitivity_skip.begin(), s_.sensitivity_skip.end(),
                         [&](const std::string& twin) { return explains(*reason, twin); });
        if (skipped == s_.sensitivity_skip.end()) {
            element.fail("expected a reason for a twin \"skip\" names: " + in_quotes(key) +
                         " explains " + reason->twin + ", which it does not name");
        }
        std::erase_if(unexplained,
                      [&](const std::string& twin) { return explains(*reason, twin); });
        s_.sensitivity_why += (s_.sensitivity_why.empty() ? "" : " ") + reason->text;
    });
}

void Loader::read_sensitivity_targets(const Value& v, const json& document) {
    std::vector<std::string> targeted;
    for (const KnownBadTwin& twin : all_known_bad_twins(document)) {
        if (twin.targeted) targeted.push_back(twin.name);
    }
    std::vector<std::string> seen;
    for_each_element(v, "an array of targeted twin names", [&](const Value& element) {
        const std::string name = read_string(element);
        if (std::find(targeted.begin(), targeted.end(), name) == targeted.end()) {
            element.fail("expected a targeted twin that applies to this scenario, one of: " +
                         (targeted.empty() ? std::string("(none)") : join(targeted)) + "; found " +
                         in_quotes(name) + suggestion(name, targeted));
        }
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
            element.fail("duplicate twin " + in_quotes(name));
        seen.push_back(name);
    });
}

}  // namespace eosim::scenarios::loading
