// Implements scenarios/scenario.h's loading entry points (`load_scenario`, `load_scenario_text`,
// the to_string helpers) and Loader::load, which reads the sections in order.
// The file format is documented in scenarios/README.md.
#include <fstream>
#include <sstream>

#include "scenarios/loader/loader.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios {

namespace loading {

Scenario Loader::load(const json& document, const std::filesystem::path& path) {
    const Value root(document, "", file_);
    const Object o(
        root,
        {"name", "description", "world", "high_availability", "without_ha", "database", "job",
         "input", "faults", "oracles", "liveness_bound", "freshness_bound", "time_limit", "expect",
         "sometimes", "savepoints", "deployments", "upgrade_swarm", "sensitivity"},
        "an object (a scenario)");
    s_.source = path;
    s_.name = path.stem().string();
    if (auto x = o.get("name")) s_.name = read_string(*x);
    if (auto x = o.get("description")) {
        if (!x->get().is_string()) x->expected("a string");
        s_.description = x->get().get<std::string>();
    }
    has_database_ = o.has("database");
    read_world(o.require("world", "an object (the world)"));
    if (auto x = o.get("high_availability")) read_high_availability(*x);
    if (auto x = o.get("without_ha")) {
        if (o.has("high_availability")) {
            x->fail(
                "expected either \"high_availability\" or \"without_ha\" (what a JobManager restarted "
                "without HA does), not both");
        }
        constexpr std::array kNoHa{engine::NoHaRecovery::application, engine::NoHaRecovery::session,
                                   engine::NoHaRecovery::storage_listing};
        s_.without_ha = read_enum(*x, kNoHa, "what a JobManager restarted without HA does");
    }
    if (auto x = o.get("database")) read_database(*x);
    read_job(o.require("job", "an object (the job)"));
    // With high_availability each deployment's JobManagers elect their leader and keep their
    // completed checkpoints and id counter under the deployment's own job name
    // (/eosim/<job>-v<k>/), as Flink gives each submitted job its own job id and HA paths.
    if (auto x = o.get("deployments")) read_deployments(*x);
    if (auto x = o.get("upgrade_swarm")) {
        if (o.has("deployments"))
            x->fail(
                "expected either \"deployments\" or \"upgrade_swarm\" (deployments drawn per seed), not both");
        read_upgrade_swarm(*x);
    }
    if (auto x = o.get("savepoints")) read_savepoints(*x);
    check_restore_sources();
    for (size_t d = 0; d < s_.deployments.size(); ++d) {
        if (const std::string shortage = slot_shortage(s_.deployment_job(d + 1), s_.world);
            !shortage.empty()) {
            throw ScenarioError(file_, "/deployments/" + std::to_string(d), shortage);
        }
    }
    if (auto x = o.get("input")) read_input(*x);
    if (auto x = o.get("faults")) read_faults(*x);
    read_oracles(o.require("oracles", "an array of oracle names"));
    if (auto x = o.get("liveness_bound")) s_.liveness_bound = read_duration(*x, false);
    if (auto x = o.get("freshness_bound")) s_.freshness_bound = read_duration(*x, false);
    if (auto x = o.get("time_limit")) s_.time_limit = read_duration(*x, false);
    if (auto x = o.get("expect")) read_expect(*x);
    if (auto x = o.get("sometimes")) read_sometimes(*x);
    if (auto x = o.get("sensitivity")) read_sensitivity(*x, document);
    if (!s_.expect.pass && !s_.expect.every_seed) {
        const std::string violation = std::string("oracle:") + s_.expect.violation;
        if (std::find(s_.sometimes.begin(), s_.sometimes.end(), violation) == s_.sometimes.end()) {
            s_.sometimes.push_back(violation);
        }
    }
    if (s_.time_limit > Duration::seconds(kMaxTimeLimitSeconds)) {
        o.get("time_limit")
            ->expected(within_limit(kMaxTimeLimitSeconds, "seconds of virtual time",
                                    "kMaxTimeLimitSeconds"));
    }
    if (auto x = o.get("liveness_bound"); x && s_.liveness_bound > s_.time_limit) {
        x->fail("expected a liveness_bound within the time_limit (" +
                format_duration(s_.time_limit) + "), found " + format_duration(s_.liveness_bound) +
                ": the liveness oracle could never judge the run");
    }
    for (const auto& [path, at] : fault_times_) {
        if (at >= sim::Time::zero() + s_.time_limit) {
            throw ScenarioError(file_, path,
                                "expected a time before the time_limit (" +
                                    format_duration(s_.time_limit) + "), found " +
                                    format_duration(at - sim::Time::zero()) +
                                    ": the fault would never fire");
        }
    }
    for (size_t i = 0; i < s_.inputs.size(); ++i) {
        // The producer writes `records` at `rate_per_second`: all of it must arrive before the
        // limit.
        const InputSpec& in = s_.inputs[i];
        const int64_t seconds = in.records / in.rate_per_second;
        if (Duration::seconds(seconds) >= s_.time_limit) {
            throw ScenarioError(file_, input_paths_[i],
                                "expected an input that arrives within the time_limit (" +
                                    format_duration(s_.time_limit) + "), found " +
                                    std::to_string(in.records) + " records at " +
                                    std::to_string(in.rate_per_second) + " per second (" +
                                    std::to_string(seconds) +
                                    " s); raise rate_per_second or time_limit, or lower records");
        }
    }
    if (s_.random_faults && s_.random_faults->quiet_after >= s_.time_limit) {
        throw ScenarioError(file_, quiet_after_path_,
                            "expected quiet_after before the time_limit (" +
                                format_duration(s_.time_limit) + "), found " +
                                format_duration(s_.random_faults->quiet_after));
    }
    return std::move(s_);
}

// ---------------------------------------------------------------------------------------------
// Parsing, with duplicate keys caught (nlohmann would silently keep the last one)

class DuplicateKeyGuard {
public:
    explicit DuplicateKeyGuard(const std::string& file) : file_(file) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start: frames_.emplace_back().array = false; break;
            case json::parse_event_t::array_start: frames_.emplace_back().array = true; break;
            case json::parse_event_t::key: {
                Frame& top = frames_.back();
                top.key = parsed.get<std::string>();
                if (!top.keys.insert(top.key).second) {
                    throw ScenarioError(file_, path(),
                                        "duplicate key " + in_quotes(top.key) + " in an object");
                }
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                frames_.pop_back();
                element_done();
                break;
            case json::parse_event_t::value: element_done(); break;
        }
        return true;
    }

private:
    struct Frame {
        bool array = false;
        size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };
    void element_done() {
        if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    }
    std::string path() const {
        std::string out;
        for (const Frame& f : frames_) {
            out += '/';
            out += f.array ? std::to_string(f.index) : pointer_token(f.key);
        }
        return out;
    }

    const std::string& file_;
    std::vector<Frame> frames_;
};

json parse_document(const std::string& text, const std::string& file) {
    try {
        return json::parse(text, DuplicateKeyGuard(file));
    } catch (const json::parse_error& e) {
        // Line and column of the byte where parsing stopped; nlohmann's message minus its prefix.
        const size_t end = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        size_t line = 1;
        size_t column = 1;
        for (size_t i = 0; i < end; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string message = e.what();
        if (const size_t at = message.find("column "); at != std::string::npos) {
            if (const size_t colon = message.find(": ", at); colon != std::string::npos) {
                message = message.substr(colon + 2);
            }
        }
        throw ScenarioError(file,
                            "line " + std::to_string(line) + ", column " + std::to_string(column),
                            "invalid JSON: " + message);
    } catch (const json::out_of_range& e) {
        // A number no double holds (e.g. 1e999; found by the fuzzer): nlohmann says which, not
        // where.
        std::string message = e.what();
        if (const size_t at = message.find("] "); at != std::string::npos)
            message = message.substr(at + 2);
        throw ScenarioError(file, "/", "invalid JSON: " + message);
    }
}

}  // namespace loading

using loading::json;
Scenario load_scenario(const std::filesystem::path& file) {
    const std::string file_name = file.string();
    std::error_code error;
    if (!std::filesystem::exists(file, error)) {
        throw ScenarioError(file_name, "/", "expected a scenario file, found no such file");
    }
    if (std::filesystem::is_directory(file, error)) {
        throw ScenarioError(file_name, "/", "expected a scenario file, found a directory");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ScenarioError(file_name, "/", "cannot open the file for reading");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ScenarioError(file_name, "/", "cannot read the file");
    return load_scenario_text(text.str(), file);
}

Scenario load_scenario_text(const std::string& text, const std::filesystem::path& file) {
    const std::string file_name = file.string();
    const json document = loading::parse_document(text, file_name);
    return loading::Loader(file_name).load(document, file);
}

}  // namespace eosim::scenarios
