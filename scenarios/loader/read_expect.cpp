// The loader's oracles and expectation sections (scenarios/loader/loader.h).
#include "engine/connectors/kafka_sink.h"
#include "oracles/window_oracle.h"
#include "scenarios/coverage.h"
#include "scenarios/loader/loader.h"

namespace eosim::scenarios::loading {

// --- oracles and expectation ---

namespace {

bool has_exactly_once_kafka_sink(const engine::JobSpec& job) {
    for (const engine::VertexSpec& v : job.vertices) {
        const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get());
        if (kafka != nullptr && kafka->options().guarantee == engine::DeliveryGuarantee::exactly_once) return true;
    }
    return false;
}

bool has_window(const engine::JobSpec& job) {
    return std::any_of(job.vertices.begin(), job.vertices.end(),
                       [](const engine::VertexSpec& v) { return v.kind == engine::OperatorKind::window; });
}

}  // namespace

void Loader::read_oracles(const Value& v) {
    for_each_element(v, "an array of oracle names", [&](const Value& element) {
        const OracleKind oracle = read_enum(element, kAllOracles, "an oracle name");
        if (std::find(s_.oracles.begin(), s_.oracles.end(), oracle) != s_.oracles.end()) {
            element.fail("duplicate oracle " + in_quotes(to_string(oracle)));
        }
        const char* unsupported = nullptr;
        if (oracle == OracleKind::mirror && !(s_.has_cdc_source() && s_.has_upsert_sink())) {
            unsupported = "a CDC job writing an upsert sink (cdc_source ... upsert_sink)";
        } else if (oracle == OracleKind::no_key_backwards && !s_.has_upsert_sink()) {
            unsupported = "a job with an upsert_sink";
        } else if (oracle == OracleKind::state_after_restore && s_.has_cdc_source()) {
            unsupported = "a job without a cdc_source (its model of a restored prefix covers Kafka offsets only)";
        } else if (oracle == OracleKind::state_after_restore && has_window(s_.job)) {
            unsupported = "a job without a window (its model of a restored prefix covers keyed count and sum; "
                          "window_output checks windows through their firings)";
        } else if (oracle == OracleKind::window_output && !oracles::find_window_output_sinks(s_.job)) {
            unsupported = "a job with one window vertex whose results go straight into a sink (and its late output, "
                          "if read, straight into another)";
        } else if (oracle == OracleKind::visibility && s_.has_cdc_source()) {
            unsupported = "a job reading or writing Kafka";
        } else if (oracle == OracleKind::verification_output &&
                   std::none_of(s_.deployments.begin(), s_.deployments.end(), [](const DeploymentSpec& d) { return d.verification; })) {
            unsupported = "a deployment with \"verification\": true";
        } else if (oracle == OracleKind::freshness && !has_exactly_once_kafka_sink(s_.job)) {
            unsupported = "a Kafka sink with guarantee exactly_once (it judges how long transactions block read_committed readers)";
        }
        if (unsupported != nullptr) {
            element.fail("oracle " + in_quotes(to_string(oracle)) + " needs " + unsupported);
        }
        s_.oracles.push_back(oracle);
    });
    if (s_.oracles.empty()) v.fail("expected at least one oracle, found an empty array");
}

void Loader::read_expect(const Value& v) {
    constexpr const char* kForm = "\"pass\", {\"violation\": oracle name} or {\"job_failure\": text of the error}";
    if (v.get().is_string()) {
        if (v.get().get<std::string>() != "pass") v.expected(kForm);
        s_.expect = Expectation{};
        return;
    }
    const Object o(v, {"violation", "every_seed", "job_failure"}, kForm);
    if (auto x = o.get("job_failure")) {
        if (o.has("violation") || o.has("every_seed")) x->fail("expected \"job_failure\" alone (every oracle must pass up to the failure)");
        s_.expect = Expectation{};
        s_.expect.job_failure = read_string(*x);
        return;
    }
    const Value violation = o.require("violation", "an oracle listed in /oracles");
    s_.expect.pass = false;
    s_.expect.violation = read_enum(violation, kAllOracles, "an oracle name");
    if (std::find(s_.oracles.begin(), s_.oracles.end(), s_.expect.violation) == s_.oracles.end()) {
        std::vector<std::string> listed;
        for (OracleKind oracle : s_.oracles) listed.push_back(to_string(oracle));
        violation.expected("an oracle listed in /oracles (" + join(listed) + ")");
    }
    if (auto x = o.get("every_seed")) s_.expect.every_seed = read_bool(*x);
}

}  // namespace eosim::scenarios::loading
