#include "scenarios/sensitivity.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/connectors/sink_registry.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

namespace {

using nlohmann::json;

bool exactly_once_kafka_sink(const json& vertex) {
    if (vertex.value("kind", "") != "sink" || vertex.value("sink", "") != "kafka") return false;
    const json options = vertex.value("options", json::object());
    return options.value("guarantee", "exactly_once") == "exactly_once";
}

// The targeted twins of the world and the job (not of a sink kind), after the general ones.
void add_targeted_twins(const json& document, bool kafka_eos, std::vector<KnownBadTwin>& twins) {
    const json kafka = document.value("world", json::object()).value("kafka", json::object());
    if (kafka_eos && !kafka.value("timer_restarts_on_write", false)) {
        json twin = document;
        twin["world"]["kafka"]["timer_restarts_on_write"] = true;
        twins.push_back(
            {"kafka.timer_per_write",
             "the broker's transaction timer restarts at every write: a transaction kept busy past the timeout never expires",
             std::move(twin), true});
    }
    const json& job = document.at("job");
    const json runtime = job.value("runtime", json::object());
    if (job.value("checkpointing", json::object()).value("enabled", true) &&
        !runtime.value("tasks_finish_before_final_checkpoint", false)) {
        json twin = document;
        twin["job"]["runtime"]["tasks_finish_before_final_checkpoint"] = true;
        twins.push_back(
            {"tasks.finish_early",
             "tasks finish at their end of data without waiting for a final checkpoint (FLIP-147's contract broken)",
             std::move(twin), true});
    }
}

// The targeted twins of a job's savepoints and event time.
void add_restore_twins(const json& document, std::vector<KnownBadTwin>& twins) {
    const json& job = document.at("job");
    const json checkpointing = job.value("checkpointing", json::object());
    if (checkpointing.value("enabled", true) &&
        !checkpointing.value("retention_discards_savepoints", false)) {
        json twin = document;
        twin["job"]["checkpointing"]["retention_discards_savepoints"] = true;
        twins.push_back(
            {"checkpointing.retention_discards_savepoints",
             "retention deletes a savepoint's files as a checkpoint's (a stop's final savepoint included)",
             std::move(twin), true});
    }
    const json vertices = job.at("vertices");
    const bool event_time = std::any_of(vertices.begin(), vertices.end(),
                                        [](const json& v) { return v.contains("watermarks"); });
    if (event_time &&
        !job.value("runtime", json::object()).value("restored_watermark_max", false)) {
        json twin = document;
        twin["job"]["runtime"]["restored_watermark_max"] = true;
        twins.push_back(
            {"tasks.watermark_max_on_restore",
             "a task restored from several subtasks' states takes the highest watermark, not the lowest",
             std::move(twin), true});
    }
}

// The names under "sensitivity"/"targets" (the loader reports anything else there).
std::vector<std::string> targets_of(const json& document) {
    std::vector<std::string> names;
    const auto sensitivity = document.find("sensitivity");
    if (sensitivity == document.end() || !sensitivity->is_object() ||
        !sensitivity->contains("targets"))
        return names;
    const json& targets = (*sensitivity)["targets"];
    if (!targets.is_array()) return names;
    for (const json& name : targets) {
        if (name.is_string()) names.push_back(name.get<std::string>());
    }
    return names;
}

}  // namespace

std::vector<KnownBadTwin> known_bad_twins(const json& document) {
    const std::vector<std::string> targets = targets_of(document);
    std::vector<KnownBadTwin> twins = all_known_bad_twins(document);
    std::erase_if(twins, [&](const KnownBadTwin& twin) {
        return twin.targeted &&
               std::find(targets.begin(), targets.end(), twin.name) == targets.end();
    });
    return twins;
}

std::vector<KnownBadTwin> all_known_bad_twins(const json& document) {
    std::vector<KnownBadTwin> twins;
    const json& job = document.at("job");
    const json checkpointing = job.value("checkpointing", json::object());
    if (checkpointing.value("mode", "exactly_once") == "exactly_once") {
        json twin = document;
        json& mode = twin["job"]["checkpointing"];
        mode["mode"] = "at_least_once";
        // At-least-once barriers never align, so neither unaligned checkpoints nor their switch
        // apply.
        mode.erase("unaligned");
        mode.erase("aligned_checkpoint_timeout");
        twins.push_back(
            {"checkpointing.at_least_once",
             "at-least-once checkpointing: barriers not aligned, records after a barrier in the snapshot's future",
             std::move(twin)});
    }
    const json& vertices = job.at("vertices");
    const bool kafka_fencing = document.value("world", json::object())
                                   .value("kafka", json::object())
                                   .value("fencing", true);
    const bool kafka_eos = std::any_of(vertices.begin(), vertices.end(), exactly_once_kafka_sink);
    if (kafka_fencing && kafka_eos) {
        json twin = document;
        twin["world"]["kafka"]["fencing"] = false;
        twins.push_back(
            {"kafka.no_fencing",
             "the broker fences no producer: a zombie's transaction stays open to writes",
             std::move(twin)});
    }
    // Each sink's twins, over every program: a sink vertex of /job/vertices, or one a later
    // deployment's program adds, is broken the same way wherever an id names it (else a twin of
    // an upgrade would break v1's sink and leave v2's as it was).
    std::vector<json::json_pointer>
        sink_places;  // every sink vertex of every program, in file order
    auto collect = [&](const json& list, const json::json_pointer& at) {
        for (size_t i = 0; i < list.size(); ++i) {
            if (list[i].value("kind", "") == "sink") sink_places.push_back(at / i);
        }
    };
    collect(vertices, json::json_pointer("/job/vertices"));
    const json deployments = document.value("deployments", json::array());
    for (size_t d = 0; d < deployments.size(); ++d) {
        if (deployments[d].contains("job_vertices")) {
            collect(deployments[d]["job_vertices"],
                    json::json_pointer("/deployments") / d / "job_vertices");
        }
    }
    std::vector<std::string> done;  // sink ids whose twins are made
    for (const json::json_pointer& first : sink_places) {
        const json& v = document.at(first);
        const std::string id = v.value("id", "");
        if (std::find(done.begin(), done.end(), id) != done.end()) continue;
        done.push_back(id);
        const engine::SinkKind* kind = engine::SinkRegistry::global().find(v.value("sink", ""));
        if (kind == nullptr || !kind->known_bad_twins) continue;
        for (engine::SinkTwin& sink_twin :
             kind->known_bad_twins(v.value("options", json::object()))) {
            json twin = document;
            for (const json::json_pointer& place : sink_places) {
                const json& other = document.at(place);
                if (other.value("id", "") != id || other.value("sink", "") != v.value("sink", ""))
                    continue;
                for (engine::SinkTwin& same :
                     kind->known_bad_twins(other.value("options", json::object()))) {
                    if (same.name == sink_twin.name)
                        twin[place]["options"] = std::move(same.options);
                }
            }
            twins.push_back({"sink." + id + "." + sink_twin.name, std::move(sink_twin.summary),
                             std::move(twin), sink_twin.targeted});
        }
    }
    add_targeted_twins(document, kafka_eos, twins);
    add_restore_twins(document, twins);
    return twins;
}

std::vector<KnownBadTwin> known_bad_twins_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return known_bad_twins(json::parse(text.str()));
}

Scenario load_twin(const std::filesystem::path& file, const std::string& scenario_name,
                   const KnownBadTwin& twin) {
    json document = twin.document;
    document["name"] = scenario_name + "+" + twin.name;
    // What the original skips and targets is the sensitivity check's business, not the twin's run
    // (a targeted twin no longer applies to itself).
    document.erase("sensitivity");
    // An oracle that judges only the exactly-once form (freshness needs an exactly-once Kafka
    // sink) does not apply to the twin: it is left out, and the other oracles judge it.
    for (;;) {
        try {
            return load_scenario_text(document.dump(), file);
        } catch (const ScenarioError& error) {
            const std::string prefix = "/oracles/";
            if (error.json_path().rfind(prefix, 0) != 0 || document["oracles"].size() < 2) throw;
            document["oracles"].erase(std::stoul(error.json_path().substr(prefix.size())));
        }
    }
}

Scenario load_twin(const std::filesystem::path& file, const std::string& twin) {
    const Scenario original = load_scenario(file);  // a bad file fails here, with its own error
    const std::vector<KnownBadTwin> twins = known_bad_twins_of(file);
    for (const KnownBadTwin& candidate : twins) {
        if (candidate.name == twin) return load_twin(file, original.name, candidate);
    }
    std::string names;
    for (const KnownBadTwin& candidate : twins)
        names += (names.empty() ? "" : ", ") + candidate.name;
    throw ScenarioError(file.string(), "",
                        "--twin: expected a known-bad twin of this scenario, one of: " +
                            (names.empty() ? std::string("(none)") : names) + "; found \"" + twin +
                            "\"");
}

// The reasons scenarios share, each written once (the sensitivity report prints the text).
const std::vector<SkipReason>& skip_reasons() {
    static const std::vector<SkipReason> reasons = {
        {"barriers_not_skewed", "checkpointing.at_least_once",
         "checkpointing.at_least_once: at-least-once checkpoints differ from exactly-once ones only "
         "where a record overtakes a barrier, at a task reading several channels whose barriers arrive "
         "further apart than the buffer timeout, and only when a restore follows; this scenario's "
         "faults do not skew barriers (no slow link, no backpressure), so its runs cannot tell the two "
         "modes apart, as in Flink. alignment-skew, backpressure-unaligned and aligned-timeout-switch "
         "target it."},
        {"count_barriers_close", "checkpointing.at_least_once",
         "the count's four input channels deliver their barriers close together (two sources share its "
         "TaskManager, two finish within the first second): at-least-once checkpointing differs from "
         "alignment only when barriers are far apart across channels, which alo-checkpointing-state "
         "(checkpointing/) provokes with a long slow link; here it was caught on 0 of 20 seeds, also with "
         "a slow link added"},
        {"at_least_once_job", "sink.*.idempotence_off",
         "an at-least-once job by design: its oracles allow duplicates, and duplicates are all that "
         "twin adds"},
    };
    return reasons;
}

const SkipReason* find_skip_reason(const std::string& key) {
    for (const SkipReason& reason : skip_reasons()) {
        if (reason.key == key) return &reason;
    }
    return nullptr;
}

bool explains(const SkipReason& reason, const std::string& twin_name) {
    const std::string any_sink = "sink.*.";
    if (reason.twin.rfind(any_sink, 0) != 0) return twin_name == reason.twin;
    const std::string suffix = "." + reason.twin.substr(any_sink.size());
    return twin_name.rfind("sink.", 0) == 0 && twin_name.size() > suffix.size() + 5 &&
           twin_name.compare(twin_name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> twin_names(const std::vector<KnownBadTwin>& twins) {
    std::vector<std::string> names;
    for (const KnownBadTwin& twin : twins) names.push_back(twin.name);
    return names;
}

}  // namespace eosim::scenarios
