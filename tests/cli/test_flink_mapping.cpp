// docs/flink-mapping.md keeps in step with scenarios/schema.json: every key the schema allows
// (anywhere, at any depth) has a row, and every row names a key or an enumerated value the schema
// has (so a key renamed or removed leaves no stale row behind).
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace eosim::testing {
namespace {

const std::filesystem::path kProject = EOSIM_PROJECT_DIR;

// Every property name and every string of an `enum` or `const` in the schema.
void collect(const nlohmann::json& node, std::set<std::string>& keys,
             std::set<std::string>& values) {
    if (node.is_object()) {
        for (const auto& [key, child] : node.items()) {
            if (key == "properties" && child.is_object()) {
                for (const auto& [name, sub] : child.items()) {
                    keys.insert(name);
                    collect(sub, keys, values);
                }
            } else if ((key == "enum" && child.is_array()) ||
                       (key == "const" && child.is_string())) {
                for (const auto& v : child.is_array() ? child : nlohmann::json::array({child})) {
                    if (v.is_string()) values.insert(v.get<std::string>());
                }
            } else {
                collect(child, keys, values);
            }
        }
    } else if (node.is_array()) {
        for (const auto& child : node) collect(child, keys, values);
    }
}

// The first cell of every table row: "| `key` | ..." -> key.
std::set<std::string> mapped_keys(const std::string& markdown) {
    std::set<std::string> out;
    const std::regex row(R"(^\| `([^`]+)` \|)");
    std::istringstream lines(markdown);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, row)) out.insert(m[1].str());
    }
    return out;
}

TEST_CASE(
    "docs/flink-mapping.md has a row for every key of the schema, and none for a key it lacks",
    "[docs][schema]") {
    std::ifstream schema_in(kProject / "scenarios/schema.json");
    REQUIRE(schema_in);
    std::set<std::string> keys, values;
    collect(nlohmann::json::parse(schema_in), keys, values);
    REQUIRE(keys.size() > 150);
    std::ifstream doc_in(kProject / "docs/flink-mapping.md");
    REQUIRE(doc_in);
    const std::string doc((std::istreambuf_iterator<char>(doc_in)),
                          std::istreambuf_iterator<char>());
    const std::set<std::string> mapped = mapped_keys(doc);
    for (const std::string& key : keys) {
        INFO("schema key without a row in docs/flink-mapping.md: " << key);
        CHECK(mapped.count(key) == 1);
    }
    for (const std::string& key : mapped) {
        INFO("docs/flink-mapping.md row for a key or value the schema does not have: " << key);
        CHECK((keys.count(key) == 1 || values.count(key) == 1));
    }
}

TEST_CASE("the mapping check catches a schema key without a row (negative control)",
          "[docs][schema]") {
    const std::set<std::string> mapped = mapped_keys(
        "| `interval` | x | y | z |\n| `timeout` | x | y | z |\nnot a row `retained`\n");
    CHECK(mapped == std::set<std::string>{"interval", "timeout"});
    CHECK(mapped.count("retained") == 0);
}

}  // namespace
}  // namespace eosim::testing
