#include "cli/test_sink_command.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/files.h"
#include "engine/connectors/process/process_channel.h"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"

namespace eosim::cli {

namespace {

using nlohmann::json;

struct Plan {
    json sink_options;
    bool contract = true;
    bool jobs = true;
    int cases = 0;
    uint64_t seed = 1;
    testkit::Guarantee guarantee = testkit::Guarantee::exactly_once;
};

Plan plan_of(const TestSinkCommand& c) {
    if (c.level != "contract" && c.level != "jobs" && c.level != "both") {
        throw std::invalid_argument("--level: expected contract, jobs or both, found \"" + c.level +
                                    "\"");
    }
    if (c.guarantee != "exactly_once" && c.guarantee != "at_least_once") {
        throw std::invalid_argument(
            "--guarantee: expected exactly_once or at_least_once, found \"" + c.guarantee + "\"");
    }
    if (c.cases < 0) throw std::invalid_argument("--cases: expected a number >= 1");
    const std::vector<std::string> argv = split_command_line(c.command);
    if (argv.empty())
        throw std::invalid_argument("--command: expected the sink's command line, found nothing");
    const std::filesystem::path cwd = std::filesystem::absolute(
        c.cwd.empty() ? std::filesystem::current_path() : std::filesystem::path(c.cwd));
    if (!std::filesystem::is_directory(cwd))
        throw std::invalid_argument("--cwd: expected an existing folder, found \"" + c.cwd + "\"");
    Plan plan;
    plan.sink_options = {{"command", argv},
                         {"cwd", cwd.lexically_normal().string()},
                         {"answer_timeout_ms", c.answer_timeout_ms}};
    plan.contract = c.level != "jobs";
    plan.jobs = c.level != "contract";
    plan.cases = c.cases;
    plan.seed = c.seed;
    plan.guarantee = c.guarantee == "exactly_once" ? testkit::Guarantee::exactly_once
                                                   : testkit::Guarantee::at_least_once;
    return plan;
}

Plan plan_of_replay(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw std::invalid_argument("--replay: cannot read " + file);
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("level", "") != "contract" ||
        !j.contains("sink_options")) {
        throw std::invalid_argument(
            "--replay " + file +
            ": expected a contract-level replay file written by eosim test-sink");
    }
    Plan plan;
    plan.sink_options = j["sink_options"];
    plan.jobs = false;
    plan.cases = j.value("cases", 0);
    plan.seed = j.value("seed", uint64_t{1});
    plan.guarantee = j.value("guarantee", "exactly_once") == "exactly_once"
                         ? testkit::Guarantee::exactly_once
                         : testkit::Guarantee::at_least_once;
    return plan;
}

// Writes the contract level's replay file; its path, or "" (with `*error`) when it cannot.
std::string write_contract_replay(const Plan& plan, const std::string& out_dir,
                                  std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    const std::string path =
        (std::filesystem::path(out_dir) / ("contract-seed" + std::to_string(plan.seed) + ".json"))
            .string();
    const json replay = {{"level", "contract"},
                         {"sink_options", plan.sink_options},
                         {"seed", plan.seed},
                         {"cases", plan.cases},
                         {"guarantee", testkit::to_string(plan.guarantee)}};
    *error = write_file_atomically(path, replay.dump(2) + "\n");
    return error->empty() ? path : std::string();
}

int protocol_error(const engine::process::ProtocolErrorLatch& latch, std::ostream& err) {
    err << "error: the sink broke the protocol (docs/sink-protocol.md):\n"
        << *latch.error() << "\n";
    return kExitBadInput;
}

int run_contract(const Plan& plan, const TestSinkCommand& c,
                 const engine::process::ProtocolErrorLatch& latch, std::ostream& out,
                 std::ostream& err) {
    testkit::ContractOptions options;
    options.sink = "process";
    options.options = plan.sink_options;
    options.guarantee = plan.guarantee;
    options.seed = plan.seed;
    if (plan.cases > 0) options.cases = plan.cases;
    const std::string replay_path =
        (std::filesystem::path(c.out) / ("contract-seed" + std::to_string(plan.seed) + ".json"))
            .string();
    options.program = c.eosim_program + " test-sink --replay " + replay_path;
    const testkit::ContractResult result = testkit::check_sink_contract(options);
    if (latch.error()) return protocol_error(latch, err);
    out << "contract level:\n" << result.report;
    if (result.passed) return kExitMet;
    std::string error;
    const std::string written = write_contract_replay(plan, c.out, &error);
    if (written.empty()) {
        err << "error: " << error << "\n";
        return kExitBadInput;
    }
    out << "counterexample: replay file " << written << " (replay: " << options.program << ")\n";
    return kExitNotMet;
}

int run_jobs(const Plan& plan, const TestSinkCommand& c,
             const engine::process::ProtocolErrorLatch& latch, std::ostream& out,
             std::ostream& err) {
    testkit::JobOptions options;
    options.sink = "process";
    options.options = plan.sink_options;
    options.guarantee = plan.guarantee;
    options.seed = plan.seed;
    if (plan.cases > 0) options.cases = plan.cases;
    options.output_dir = c.out;
    options.eosim_command = c.eosim_program;
    const testkit::JobResult result = testkit::check_sink_in_jobs(options);
    if (latch.error()) return protocol_error(latch, err);
    out << "job level:\n" << result.report << "\n";
    if (result.passed) return kExitMet;
    out << "counterexample: replay file " << result.scenario_file
        << " (replay: " << result.reproduce << ")\n";
    return kExitNotMet;
}

}  // namespace

std::vector<std::string> split_command_line(const std::string& text) {
    std::vector<std::string> out;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char ch : text) {
        if (quote != 0) {
            if (ch == quote)
                quote = 0;
            else
                word += ch;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            in_word = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\n') {
            if (in_word) out.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += ch;
            in_word = true;
        }
    }
    if (quote != 0) throw std::invalid_argument("--command: an unclosed quote in \"" + text + "\"");
    if (in_word) out.push_back(word);
    return out;
}

int test_sink_command(const TestSinkCommand& command, std::ostream& out, std::ostream& err) {
    Plan plan;
    try {
        plan = command.replay.empty() ? plan_of(command) : plan_of_replay(command.replay);
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << "\n";
        return kExitBadInput;
    }
    const engine::process::ProtocolErrorLatch latch;
    try {
        if (plan.contract) {
            const int code = run_contract(plan, command, latch, out, err);
            if (code != kExitMet) return code;
        }
        return plan.jobs ? run_jobs(plan, command, latch, out, err) : kExitMet;
    } catch (const std::invalid_argument&
                 error) {  // the sink's options or hello (testkit::configure_sink)
        err << "error: " << error.what() << "\n";
        return kExitBadInput;
    } catch (const engine::process::ProcessSinkError& error) {
        err << "error: the sink broke the protocol (docs/sink-protocol.md):\n"
            << error.what() << "\n";
        return kExitBadInput;
    }
}

}  // namespace eosim::cli
