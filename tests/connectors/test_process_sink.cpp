// The process sink (engine/connectors/process/, docs/sink-protocol.md): a sink that keeps the
// protocol passes the testkit through `eosim test-sink`; each way of breaking the protocol ends
// with exit code 2 and an error naming the sink's command, the last message sent and the offending
// line; a sink whose answers differ between two runs of a seed fails `eosim run
// --check-determinism` naming the first differing message. The sinks are small Python scripts
// written into a temp folder.
#include <filesystem>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli/exit_codes.h"
#include "cli/run_command.h"
#include "cli/test_sink_command.h"
#include "tests/temp_dir.h"

namespace {

using eosim::testing::TempDir;

// A minimal sink (an upsert into key_values that ignores failed calls: it keeps the protocol, not
// the contract; it keeps no state, so an idle process may serve the next instance: "reuse") with
// `misdeed` (Python code) run when the first write arrives; `hello` replaces the hello line.
std::string python_sink(const std::string& misdeed, const std::string& hello = "") {
    const std::string default_hello =
        R"({"type": "hello", "protocol": 1, "systems": ["key_values"], "output": {"system": "key_values", "prefix": "t:", "shape": "keyed_table"}, "reuse": True})";
    return "import json, sys, time, random\n"
           "def send(m):\n    sys.stdout.write(json.dumps(m) + '\\n'); sys.stdout.flush()\n"
           "send(" +
           (hello.empty() ? default_hello : hello) +
           ")\n"
           "for line in sys.stdin:\n"
           "    m = json.loads(line)\n"
           "    if m['type'] == 'write':\n"
           "        " +
           (misdeed.empty() ? "pass" : misdeed) +
           "\n"
           "        for r in m['records']:\n"
           "            send({'type': 'call', 'system': 'key_values', 'op': 'set', 'key': 't:%d' % r['key'], 'value': r['value']})\n"
           "            sys.stdin.readline()\n"
           "    answer = {'type': 'done', 're': m['seq']}\n"
           "    if m['type'] == 'pre_commit': answer['state'] = ''\n"
           "    send(answer)\n";
}

struct Outcome {
    int code;
    std::string out;
    std::string err;
};

Outcome test_sink(const TempDir& dir, const std::string& script, int timeout_ms = 10000) {
    dir.write("sink.py", script);
    eosim::cli::TestSinkCommand command;
    command.command = "python3 sink.py";
    command.cwd = dir.path().string();
    command.level = "contract";
    command.cases = 5;
    command.guarantee = "at_least_once";
    command.answer_timeout_ms = timeout_ms;
    command.out = (dir / "failures").string();
    std::ostringstream out, err;
    const int code = eosim::cli::test_sink_command(command, out, err);
    return {code, out.str(), err.str()};
}

void require_protocol_error(const Outcome& outcome, const std::string& what,
                            const std::string& offending) {
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.code == eosim::cli::kExitBadInput);
    CHECK(outcome.err.find(what) != std::string::npos);
    CHECK(outcome.err.find("command: python3 sink.py") != std::string::npos);
    CHECK(outcome.err.find("last message sent: ") != std::string::npos);
    CHECK(outcome.err.find("offending line: " + offending) != std::string::npos);
}

}  // namespace

TEST_CASE("process sink: a sink that keeps the protocol passes the contract level",
          "[process_sink]") {
    eosim::cli::TestSinkCommand command;  // the Python example: a guarded upsert
    command.command = "python3 sink.py";
    command.cwd = (std::filesystem::path(EOSIM_PROJECT_DIR) / "examples/python-kv-sink").string();
    command.level = "contract";
    command.cases = 20;
    std::ostringstream out, err;
    const int code = eosim::cli::test_sink_command(command, out, err);
    INFO(out.str() << err.str());
    CHECK(code == eosim::cli::kExitMet);
    CHECK(out.str().find("kept the contract in 20 cases") != std::string::npos);
}

TEST_CASE("process sink: a buggy sink is a counterexample (exit 1) with its replay file",
          "[process_sink]") {
    const TempDir dir;  // drops every second record: at-least-once output must miss some
    dir.write("sink.py", python_sink("m['records'] = m['records'][::2]"));
    eosim::cli::TestSinkCommand command;
    command.command = "python3 sink.py";
    command.cwd = dir.path().string();
    command.level = "contract";
    command.guarantee = "at_least_once";
    command.out = (dir / "failures").string();
    std::ostringstream out, err;
    const int code = eosim::cli::test_sink_command(command, out, err);
    INFO(out.str() << err.str());
    REQUIRE(code == eosim::cli::kExitNotMet);
    const std::string replay = (dir / "failures" / "contract-seed1.json").string();
    CHECK(out.str().find("counterexample: replay file " + replay) != std::string::npos);
    eosim::cli::TestSinkCommand again;
    again.replay = replay;
    again.out = (dir / "failures").string();
    std::ostringstream out2, err2;
    CHECK(eosim::cli::test_sink_command(again, out2, err2) == eosim::cli::kExitNotMet);
}

TEST_CASE("process sink: malformed JSON is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(test_sink(dir, python_sink("print('{not json'); sys.stdout.flush()")),
                           "malformed JSON", "{not json");
}

TEST_CASE("process sink: other text on stdout is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(
        test_sink(dir, python_sink("print('debug: got a write'); sys.stdout.flush()")),
        "malformed JSON", "debug: got a write");
}

TEST_CASE("process sink: an unknown message type is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(test_sink(dir, python_sink("send({'type': 'flush_now'})")),
                           "unknown message type \"flush_now\"", R"({"type": "flush_now"})");
}

TEST_CASE("process sink: an answer to the wrong message is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(test_sink(dir, python_sink("m['seq'] += 1")),
                           "an answer to the wrong message", R"({"type": "done", "re": )");
}

TEST_CASE("process sink: a call to a system the hello does not list is a protocol error",
          "[process_sink]") {
    const TempDir dir;
    require_protocol_error(
        test_sink(
            dir,
            python_sink(
                "send({'type': 'call', 'system': 'documents', 'op': 'scan', 'index': 'x'}); sys.stdin.readline()")),
        "a call to documents, which the hello does not list in \"systems\"",
        R"({"type": "call", "system": "documents")");
}

TEST_CASE("process sink: a call to an unknown system or op is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(
        test_sink(dir,
                  python_sink(
                      "send({'type': 'call', 'system': 'key_values', 'op': 'hset', 'key': 'k'})")),
        "unknown op \"hset\" of key_values",
        R"({"type": "call", "system": "key_values", "op": "hset")");
}

TEST_CASE("process sink: a process that exits is a protocol error", "[process_sink]") {
    const TempDir dir;
    require_protocol_error(test_sink(dir, python_sink("sys.exit(3)")),
                           "closed its stdout (exited with status 3)", "(none)");
}

TEST_CASE("process sink: a process that does not answer in time is a protocol error, not a hang",
          "[process_sink]") {
    const TempDir dir;
    require_protocol_error(test_sink(dir, python_sink("time.sleep(3600)"), 300),
                           "no answer within 300 ms", "(none)");
}

TEST_CASE("process sink: a bad hello is bad input naming what was expected", "[process_sink]") {
    const TempDir dir;
    const Outcome old_version =
        test_sink(dir, python_sink("", R"({"type": "hello", "protocol": 0})"));
    CHECK(old_version.code == eosim::cli::kExitBadInput);
    CHECK(old_version.err.find("expected \"protocol\": 1") != std::string::npos);
    const Outcome no_output =
        test_sink(dir, python_sink("", R"({"type": "hello", "protocol": 1})"));
    CHECK(no_output.code == eosim::cli::kExitBadInput);
    CHECK(no_output.err.find("expected \"output\"") != std::string::npos);
    const Outcome no_program = [&] {
        eosim::cli::TestSinkCommand command;
        command.command = "no-such-program-eosim";
        std::ostringstream out, err;
        return Outcome{eosim::cli::test_sink_command(command, out, err), out.str(), err.str()};
    }();
    CHECK(no_program.code == eosim::cli::kExitBadInput);
    CHECK(no_program.err.find("cannot start no-such-program-eosim") != std::string::npos);
}

TEST_CASE("process sink: --check-determinism names the first message that differs",
          "[process_sink]") {
    const TempDir dir;
    // Answers with the wall clock in its state: the second run's pre_commit answer differs.
    std::string script = python_sink("");
    script.replace(script.find("answer['state'] = ''"), 20, "answer['state'] = str(time.time())");
    dir.write("sink.py", script);
    dir.write("job.json", R"({
      "world": {"task_managers": 1, "slots_per_task_manager": 2, "topics": [{"name": "input", "partitions": 1}]},
      "job": {"name": "j", "vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 1},
        {"id": "count", "kind": "keyed_count", "parallelism": 1, "inputs": [{"from": "source", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "process", "parallelism": 1, "inputs": [{"from": "count", "edge": "forward"}],
         "options": {"command": ["python3", "sink.py"], "cwd": ")" +
                              dir.path().string() + R"("}}],
        "checkpointing": {"mode": "exactly_once", "interval": "500ms"}},
      "input": [{"topic": "input", "records": 300, "keys": 4, "rate_per_second": 1000}],
      "oracles": ["liveness"], "expect": "pass"})");
    eosim::cli::RunCommand command;
    command.file = (dir / "job.json").string();
    command.check_determinism = true;
    std::ostringstream out, err;
    const int code = eosim::cli::run_command(command, out, err);
    INFO(out.str() << err.str());
    CHECK(code == eosim::cli::kExitNotMet);
    CHECK(err.str().find("determinism check failed") != std::string::npos);
    CHECK(
        err.str().find(
            "differs:\n  first run:  vertex sink, subtask 0, attempt 1 -> eosim: {\"type\": \"done\"") !=
        std::string::npos);
    CHECK(err.str().find("\"state\": \"") != std::string::npos);
}
