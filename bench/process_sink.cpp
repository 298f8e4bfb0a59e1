// Process-sink benchmark (docs/sink-protocol.md): (1) protocol round trips per second: eosim
// sends a `write` message of one record and reads the answer, through the process sink's channel,
// to an echo sink in Python (and any other --command); (2) a contract-level run of the Python
// example (examples/python-kv-sink) of `--cases` cases, as `eosim test-sink --level contract` runs
// it. Goals: >= 20,000 round trips a second on one core; 1,000 contract cases under 60 s.
//
// Wall-clock time is read here and only here: benchmarks are not part of any simulation.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "engine/connectors/process/process_channel.h"
#include "testkit/sink_contract.h"

namespace {

using eosim::engine::process::ProcessChannel;
using eosim::engine::process::ProcessCommand;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr const char* kEchoSink =
    "import json, sys\n"
    "sys.stdout.write('{\"type\": \"hello\", \"protocol\": 1, \"output\": {\"system\": \"key_values\", \"prefix\": \"b:\"}}\\n')\n"
    "sys.stdout.flush()\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    sys.stdout.write(json.dumps({'type': 'done', 're': m['seq']}) + '\\n')\n"
    "    sys.stdout.flush()\n";

// Round trips a second through the channel to `argv`; `*eosim_cpu_us` the CPU time eosim's side
// spent on one (its own process only: the sink's is its own).
double round_trips(const std::vector<std::string>& argv, int messages, double* eosim_cpu_us) {
    ProcessCommand command;
    command.spec.argv = argv;
    ProcessChannel channel(command, "bench");
    nlohmann::json message = {{"type", "write"},
                              {"records", {{{"key", 1}, {"value", 2}, {"timestamp", 0}}}},
                              {"time_ms", 0}};
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    for (int i = 1; i <= messages; ++i) {
        message["seq"] = i;
        message["random"] = i * 7919;
        channel.send(message);
        if (channel.receive()["re"] != i) channel.fail("bench: an answer to the wrong message");
    }
    *eosim_cpu_us = 1e6 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC / messages;
    return messages / seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Process sink: protocol round trips a second, and a contract run of the Python example"};
    int messages = 100000;
    int cases = 1000;
    std::string python = "python3";
    std::vector<std::string> extra;
    app.add_option("--messages", messages, "Round trips to time")->capture_default_str();
    app.add_option("--cases", cases, "Contract cases of the Python example (0: skip)")
        ->capture_default_str();
    app.add_option("--python", python, "The Python interpreter")->capture_default_str();
    app.add_option("--command", extra, "Also time round trips to this echo sink (argv)");
    CLI11_PARSE(app, argc, argv);

    const std::filesystem::path echo =
        std::filesystem::temp_directory_path() / "eosim-bench-echo-sink.py";
    std::ofstream(echo) << kEchoSink;
    double cpu_us = 0;
    const double python_rate = round_trips({python, echo.string()}, messages, &cpu_us);
    std::printf(
        "round trips (write of 1 record -> done), Python echo sink: %.0f /s (eosim's side: %.1f us CPU each)\n",
        python_rate, cpu_us);
    if (!extra.empty()) {
        const double rate = round_trips(extra, messages, &cpu_us);
        std::printf("round trips, %s: %.0f /s (eosim's side: %.1f us CPU each)\n",
                    extra.front().c_str(), rate, cpu_us);
    }
    std::filesystem::remove(echo);
    if (cases == 0) return 0;

    eosim::testkit::ContractOptions options;
    options.sink = "process";
    options.options = {{"command", {python, "sink.py"}},
                       {"cwd", std::string(EOSIM_SOURCE_DIR) + "/examples/python-kv-sink"}};
    options.cases = cases;
    const auto start = std::chrono::steady_clock::now();
    const eosim::testkit::ContractResult result = eosim::testkit::check_sink_contract(options);
    std::printf("contract level, examples/python-kv-sink: %d cases %s in %.1f s\n", result.cases,
                result.passed ? "passed" : "FAILED", seconds_since(start));
    return result.passed ? 0 : 1;
}
