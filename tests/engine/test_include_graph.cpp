// The engine's rooms import one way (engine/README.md, "Rooms and the vocabulary floor"): read
// from the source tree, engine/vocabulary/ includes no room of the engine, and
// engine/checkpointing/ and engine/connectors/ include nothing from engine/runtime/. Each rule has
// a negative control: the same check over a line that breaks it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::filesystem::path kEngine = std::filesystem::path(EOSIM_SOURCE_DIR) / "engine";

// The engine folder an include names ("runtime" for "engine/runtime/task.h"), or "" when it names
// no engine folder (a standard header, sim/, engine/invariant.h).
std::string engine_folder_of(const std::string& include) {
    static const std::regex engine_path(R"(^engine/([a-z_]+)/)");
    std::smatch match;
    return std::regex_search(include, match, engine_path) ? match[1].str() : "";
}

// Every "engine/<folder>/..." that the text's #include lines name, with the line.
std::vector<std::pair<std::string, std::string>> engine_includes(const std::string& text) {
    static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
    std::vector<std::pair<std::string, std::string>> found;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (!std::regex_search(line, match, include_line)) continue;
        const std::string folder = engine_folder_of(match[1].str());
        if (!folder.empty()) found.emplace_back(folder, match[1].str());
    }
    return found;
}

// The includes of `text` that name a folder in `forbidden`.
std::vector<std::string> forbidden_includes(const std::string& text,
                                            const std::vector<std::string>& forbidden) {
    std::vector<std::string> broken;
    for (const auto& [folder, include] : engine_includes(text)) {
        if (std::find(forbidden.begin(), forbidden.end(), folder) != forbidden.end())
            broken.push_back(include);
    }
    return broken;
}

// "file: include" for every source file under engine/`folder` (recursively) that includes a
// folder in `forbidden`.
std::vector<std::string> violations(const std::string& folder,
                                    const std::vector<std::string>& forbidden, size_t& files) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kEngine / folder)) {
        const std::string ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
        ++files;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        for (const std::string& include : forbidden_includes(text.str(), forbidden)) {
            found.push_back(
                std::filesystem::relative(entry.path(), kEngine.parent_path()).string() + ": " +
                include);
        }
    }
    return found;
}

// The engine's rooms: every folder of engine/ but the floor.
std::vector<std::string> rooms() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(kEngine)) {
        if (entry.is_directory() && entry.path().filename() != "vocabulary")
            names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST_CASE("include graph: the check reads include lines and their engine folder",
          "[include-graph]") {
    const std::string text =
        "#include <map>\n#include \"sim/world.h\"\n#include \"engine/invariant.h\"\n"
        "  #  include \"engine/runtime/task.h\"\n// #include \"engine/state/x.h\" is a comment\n";
    CHECK(forbidden_includes(text, {"runtime"}) ==
          std::vector<std::string>{"engine/runtime/task.h"});
    CHECK(forbidden_includes(text, {"state"}).empty());
    CHECK(forbidden_includes("#include \"engine/vocabulary/record.h\"\n", {"runtime", "state"})
              .empty());
    CHECK(rooms() == std::vector<std::string>{"checkpointing", "connectors", "runtime", "state"});
}

TEST_CASE("include graph: the vocabulary floor includes no room of the engine", "[include-graph]") {
    size_t files = 0;
    CHECK(violations("vocabulary", rooms(), files).empty());
    CHECK(files >= 10);
}

TEST_CASE("include graph: checkpointing/ and connectors/ include nothing from runtime/",
          "[include-graph]") {
    size_t files = 0;
    CHECK(violations("checkpointing", {"runtime"}, files).empty());
    CHECK(violations("connectors", {"runtime"}, files).empty());
    CHECK(files >= 30);
}
