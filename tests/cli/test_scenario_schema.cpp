// scenarios/schema.json agrees with the loader (scenarios/loader/):
// - every scenario file of the catalogue (scenarios/catalogue/) and of the test fixtures validates
// against it;
// - every key the schema allows is used by a fixture that the loader accepts (so the schema allows
//   nothing the loader rejects as unknown), and the fixtures validate;
// - a key the loader does not know, anywhere in those files, is rejected by both (the schema's
//   additionalProperties: false), and so is a value of the wrong type at any leaf;
// - a key whose absence the loader reports as missing is required by the schema, and a key the
//   schema requires is one the loader cannot do without;
// - the schema's enumerations (oracles, vertex, edge and fault kinds, protocol points, control
//   messages, ...) are exactly the names the C++ code knows.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/runtime/control_messages.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/protocol_points.h"
#include "oracles/oracle_registry.h"
#include "scenarios/coverage.h"
#include "scenarios/fault_types.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_files.h"
#include "sim/fault_plan.h"
#include "tests/catalogue.h"
#include "tests/cli/json_schema_check.h"

namespace eosim::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kProject = EOSIM_PROJECT_DIR;
const fs::path kFixtures = kProject / "tests/cli/fixtures";

json read_json(const fs::path& file) {
    std::ifstream in(file);
    REQUIRE(in);
    return json::parse(in);
}

JsonSchemaCheck schema_check() {
    return JsonSchemaCheck(read_json(kProject / "scenarios/schema.json"));
}

std::vector<fs::path> shipped_scenarios() { return scenarios::scenario_files_in(kCatalogue); }

const std::vector<std::string> kFullFixtures = {
    "schema-full-a.json", "schema-full-b.json",      "schema-full-c.json", "schema-full-d.json",
    "schema-full-e.json", "schema-full-f.json",      "schema-full-g.json", "schema-full-joins.json",
    "schema-full-h.json", "schema-full-process.json"};

// Loads `document` as a scenario file; the error's JSON path, or "" when the loader accepts it.
std::string loader_error_path(const json& document, const fs::path& scratch,
                              std::string* message = nullptr) {
    {
        std::ofstream out(scratch);
        out << document.dump(2);
    }
    try {
        scenarios::load_scenario(scratch);
        return "";
    } catch (const scenarios::ScenarioError& error) {
        if (message != nullptr) *message = error.what();
        return error.json_path();
    }
}

// Calls `visit(pointer)` for every object (for `objects`) or every scalar leaf in `document`.
void walk(const json& value, const json::json_pointer& at, bool objects,
          const std::function<void(const json::json_pointer&)>& visit) {
    if (value.is_object()) {
        if (objects) visit(at);
        for (const auto& [key, child] : value.items()) walk(child, at / key, objects, visit);
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) walk(value[i], at / i, objects, visit);
    } else if (!objects) {
        visit(at);
    }
}

std::set<std::string> enum_of(const json& schema, const std::string& definition) {
    std::set<std::string> out;
    for (const auto& name : schema.at("definitions").at(definition).at("enum"))
        out.insert(name.get<std::string>());
    return out;
}

struct ScratchFile {
    fs::path path =
        fs::temp_directory_path() / ("eosim-schema-test-" + std::to_string(::getpid()) + ".json");
    ~ScratchFile() {
        std::error_code ignored;
        fs::remove(path, ignored);
    }
};

TEST_CASE("schema: every shipped scenario and test fixture validates", "[schema]") {
    JsonSchemaCheck check = schema_check();
    std::vector<fs::path> files = shipped_scenarios();
    REQUIRE_FALSE(files.empty());
    for (const char* name :
         {"quick-eos.json", "quick-dup.json", "schema-full-a.json", "schema-full-b.json",
          "schema-full-c.json", "schema-full-d.json", "schema-full-e.json"}) {
        files.push_back(kFixtures / name);
    }
    for (const fs::path& file : files) {
        INFO(file.string());
        CHECK_NOTHROW(scenarios::load_scenario(file));
        std::vector<std::string> errors;
        const bool valid = check.validate(read_json(file), &errors);
        for (const std::string& error : errors) UNSCOPED_INFO(error);
        CHECK(valid);
    }
}

TEST_CASE("schema: every key it allows is used by a fixture the loader accepts", "[schema]") {
    JsonSchemaCheck check = schema_check();
    for (const std::string& name : kFullFixtures) {
        REQUIRE_NOTHROW(scenarios::load_scenario(kFixtures / name));
        REQUIRE(check.validate(read_json(kFixtures / name)));
    }
    std::vector<std::string> unused;
    for (const std::string& property : check.all_properties()) {
        if (check.used_properties().count(property) == 0) unused.push_back(property);
    }
    for (const std::string& property : unused) UNSCOPED_INFO("never used: " << property);
    CHECK(unused.empty());
}

TEST_CASE("schema: an unknown key anywhere is rejected by both the loader and the schema",
          "[schema]") {
    JsonSchemaCheck check = schema_check();
    ScratchFile scratch;
    size_t mutations = 0;
    for (const std::string& name : kFullFixtures) {
        const json document = read_json(kFixtures / name);
        walk(document, json::json_pointer(), true, [&](const json::json_pointer& at) {
            json bad = document;
            bad[at]["unexpected_key"] = 1;
            INFO(name << " at " << at.to_string());
            CHECK(loader_error_path(bad, scratch.path) == at.to_string() + "/unexpected_key");
            CHECK_FALSE(check.accepts(bad));
            ++mutations;
        });
    }
    CHECK(mutations > 50);
}

TEST_CASE("schema: a value of the wrong type at any leaf is rejected by both", "[schema][heavy]") {
    JsonSchemaCheck check = schema_check();
    ScratchFile scratch;
    for (const std::string& name : kFullFixtures) {
        const json document = read_json(kFixtures / name);
        walk(document, json::json_pointer(), false, [&](const json::json_pointer& at) {
            for (const json& wrong :
                 {json(nullptr), json::object(), json::array({json::array()})}) {
                json bad = document;
                bad[at] = wrong;
                INFO(name << " at " << at.to_string() << " = " << wrong.dump());
                CHECK_FALSE(loader_error_path(bad, scratch.path).empty());
                CHECK_FALSE(check.accepts(bad));
            }
        });
    }
}

TEST_CASE("schema: required keys agree with the loader's missing-key errors", "[schema][heavy]") {
    JsonSchemaCheck check = schema_check();
    ScratchFile scratch;
    for (const std::string& name : kFullFixtures) {
        const json document = read_json(kFixtures / name);
        walk(document, json::json_pointer(), true, [&](const json::json_pointer& at) {
            for (const auto& [key, value] : document[at].items()) {
                json bad = document;
                bad[at].erase(key);
                const std::string removed = (at / key).to_string();
                std::string message;
                const std::string loader_path = loader_error_path(bad, scratch.path, &message);
                const bool schema_valid = check.accepts(bad);
                INFO(name << ": without " << removed << " the loader says "
                          << (loader_path.empty() ? "fine" : message));
                // The loader says the key is missing -> the schema requires it.
                if (loader_path == removed &&
                    message.find("missing required key") != std::string::npos) {
                    CHECK_FALSE(schema_valid);
                }
                // The schema requires it -> the loader cannot do without it either.
                if (!schema_valid) CHECK_FALSE(loader_path.empty());
            }
        });
    }
}

TEST_CASE("schema: malformed values the loader rejects, the schema rejects too", "[schema]") {
    JsonSchemaCheck check = schema_check();
    ScratchFile scratch;
    const json document = read_json(kFixtures / "schema-full-a.json");
    const std::vector<std::pair<std::string, json>> cases = {
        {"/job/checkpointing/interval", "5 s"},
        {"/job/checkpointing/interval", "1.5"},
        {"/job/checkpointing/interval", "-1s"},
        {"/job/checkpointing/interval", "10sec"},
        {"/job/checkpointing/interval", "0ms"},
        {"/job/checkpointing/interval", -5},
        {"/world/network/datagram_loss", "1:100"},
        {"/world/network/datagram_loss", {{"numerator", 1}}},
        {"/job/vertices/0/kind", "kafka_sauce"},
        {"/job/vertices/2/inputs/0/edge", "broadcast!"},
        {"/faults/schedule/0/kind", "explode"},
        {"/faults/schedule/1/at_point/point", "sink.nowhere"},
        {"/faults/schedule/0/nodes/0", "tm-one"},
        {"/oracles/0", "exactly_twice"},
        {"/expect", "fail"},
        {"/sometimes/0", "crash@nowhere"},
        {"/faults/random/mode", "chaos"},
        {"/world/task_managers", 0},
        {"/faults/schedule/10/messages/0", "jm.nonsense"},
    };
    for (const auto& [where, value] : cases) {
        json bad = document;
        bad[json::json_pointer(where)] = value;
        INFO(where << " = " << value.dump());
        CHECK_FALSE(loader_error_path(bad, scratch.path).empty());
        CHECK_FALSE(check.accepts(bad));
    }
    SECTION("both triggers at once") {
        json bad = document;
        bad["faults"]["schedule"][0]["at_point"] = {{"point", "sink.precommitted"}};
        CHECK_FALSE(loader_error_path(bad, scratch.path).empty());
        CHECK_FALSE(check.accepts(bad));
    }
    SECTION("a key of another vertex kind") {
        json bad = document;
        bad["job"]["vertices"][5]["topic"] = "out";  // keyed_count has no topic
        CHECK(loader_error_path(bad, scratch.path) == "/job/vertices/5/topic");
        CHECK_FALSE(check.accepts(bad));
    }
    SECTION("a key of another fault kind") {
        json bad = document;
        bad["faults"]["schedule"][9]["duration"] = "1s";  // transaction_abort has no duration
        CHECK(loader_error_path(bad, scratch.path) == "/faults/schedule/9/duration");
        CHECK_FALSE(check.accepts(bad));
    }
}

TEST_CASE("schema: its enumerations are the names the code knows", "[schema]") {
    const json schema = read_json(kProject / "scenarios/schema.json");
    // The schema's oracle list is the registry's: a registered oracle the schema lacks (or a stale
    // name in the schema) fails here.
    // Oracles that other test cases register for themselves (named "test_...") are left out:
    // whether they are registered yet depends on the order the test cases run in (all in one
    // process).
    std::set<std::string> registered;
    for (const std::string& name : oracles::OracleRegistry::global().names()) {
        if (name.rfind("test_", 0) != 0) registered.insert(name);
    }
    CHECK(enum_of(schema, "oracle") == registered);

    std::set<std::string> faults;
    for (const std::string& name : scenarios::FaultTypes::global().names()) {
        if (name.rfind("test_", 0) != 0)
            faults.insert(name);  // a kind a test registered is not the schema's
    }
    CHECK(enum_of(schema, "fault_kind") == faults);

    std::set<std::string> vertices;
    for (auto kind :
         {engine::OperatorKind::kafka_source, engine::OperatorKind::map,
          engine::OperatorKind::filter, engine::OperatorKind::union_all,
          engine::OperatorKind::keyed_count, engine::OperatorKind::keyed_sum,
          engine::OperatorKind::sink, engine::OperatorKind::cdc_source,
          engine::OperatorKind::window, engine::OperatorKind::join, engine::OperatorKind::dedup}) {
        vertices.insert(engine::to_string(kind));
    }
    CHECK(enum_of(schema, "vertex_kind") == vertices);
    CHECK(enum_of(schema, "edge_kind") ==
          std::set<std::string>{engine::to_string(engine::EdgeKind::forward),
                                engine::to_string(engine::EdgeKind::hash),
                                engine::to_string(engine::EdgeKind::rebalance)});
    CHECK(enum_of(schema, "delivery_guarantee") ==
          std::set<std::string>{engine::to_string(engine::DeliveryGuarantee::none),
                                engine::to_string(engine::DeliveryGuarantee::at_least_once),
                                engine::to_string(engine::DeliveryGuarantee::exactly_once)});
    CHECK(enum_of(schema, "checkpointing_mode") ==
          std::set<std::string>{engine::to_string(engine::CheckpointingMode::exactly_once),
                                engine::to_string(engine::CheckpointingMode::at_least_once)});

    std::set<std::string> points;
    for (std::string_view point : engine::points::kAll) points.emplace(point);
    CHECK(enum_of(schema, "protocol_point") == points);
    std::set<std::string> messages;
    for (const sim::EventKind* message : engine::messages::kAll) messages.emplace(message->name);
    CHECK(enum_of(schema, "control_message") == messages);
}

TEST_CASE("schema: coverage combinations it accepts are the ones the loader accepts", "[schema]") {
    JsonSchemaCheck check = schema_check();
    const json schema = read_json(kProject / "scenarios/schema.json");
    std::vector<std::string> names;
    for (const std::string& oracle : enum_of(schema, "oracle")) names.push_back("oracle:" + oracle);
    for (const std::string& kind : enum_of(schema, "fault_kind")) {
        for (std::string_view phase : scenarios::phases::kAll)
            names.push_back(kind + "@" + std::string(phase));
        for (const std::string& point : enum_of(schema, "protocol_point"))
            names.push_back(kind + "@point:" + point);
        names.push_back(kind + "@nowhere");
        names.push_back(kind + "@point:nowhere");
    }
    for (const char* odd :
         {"oracle:", "oracle:nobody", "@any", "crash", "crash@", "crash@point:", "explode@any",
          "crash@any ", " crash@any", "crash@point:sink.precommitted.x"}) {
        names.push_back(odd);
    }
    json document = read_json(kFixtures / "schema-full-b.json");
    for (const std::string& name : names) {
        document["sometimes"] = json::array({name});
        INFO(name);
        CHECK(check.validate(document) == scenarios::check_combination_name(name).empty());
    }
}

}  // namespace
}  // namespace eosim::testing
