// Asynchronous calls over the process-sink protocol (docs/sink-protocol.md, "Asynchronous calls"):
// the Python AsyncSinkWriter of examples/python-async-sink passes the contract level at its
// defaults, its twin that pre-commits without waiting for requests in flight
// (examples/python-async-sink-no-wait) is caught there (a key ends without the last value of a
// completed checkpoint: a record still buffered or in a request a crash dropped when the checkpoint
// was taken), and a sink that misuses the asynchronous messages gets a protocol error (exit 2)
// saying what was expected.
#include <filesystem>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli/exit_codes.h"
#include "cli/test_sink_command.h"
#include "tests/temp_dir.h"

namespace {

using eosim::testing::TempDir;

struct AsyncProcessOutcome {
    int code;
    std::string out;
    std::string err;
};

AsyncProcessOutcome run_async_process_sink(const std::string& command_line,
                                           const std::filesystem::path& cwd,
                                           const std::filesystem::path& out, int cases = 0) {
    eosim::cli::TestSinkCommand command;
    command.command = command_line;
    command.cwd = cwd.string();
    command.level = "contract";
    command.cases = cases;  // 0: the testkit's defaults
    command.out = out.string();
    std::ostringstream out_text, err_text;
    const int code = eosim::cli::test_sink_command(command, out_text, err_text);
    return {code, out_text.str(), err_text.str()};
}

std::filesystem::path async_example(const std::string& name) {
    return std::filesystem::path(EOSIM_SOURCE_DIR) / "examples" / name;
}

// A sink whose hello is `hello` (Python) and that, on its first write, runs `misdeed` (Python).
std::string misbehaving_async_sink(const std::string& hello, const std::string& misdeed) {
    return "import json, sys\n"
           "def send(m):\n    sys.stdout.write(json.dumps(m) + '\\n'); sys.stdout.flush()\n"
           "send(" +
           hello +
           ")\n"
           "for line in sys.stdin:\n"
           "    m = json.loads(line)\n"
           "    answer = {'type': 'done', 're': m['seq']}\n"
           "    if m['type'] == 'write':\n"
           "        " +
           misdeed +
           "\n"
           "    if m['type'] == 'prepare_pre_commit': answer['ready'] = True\n"
           "    if m['type'] == 'pre_commit': answer['state'] = ''\n"
           "    send(answer)\n";
}

constexpr const char* kAsyncHello =
    R"({"type": "hello", "protocol": 1, "systems": ["documents", "kafka"], "async": True, "output": {"system": "documents", "index": "t"}})";
constexpr const char* kBulkCall =
    "send({'type': 'call', 'async': True, 'system': 'documents', 'op': 'bulk', 'index': 't', 'items': []}); sys.stdin.readline()";

// `where`: how the error names the sink (a protocol error its command line; a bad hello, read when
// the scenario is loaded, the option that holds the command).
void require_async_protocol_error(const std::string& script, const std::string& what,
                                  const std::string& where = "command: python3 sink.py") {
    const TempDir dir;
    dir.write("sink.py", script);
    const AsyncProcessOutcome outcome =
        run_async_process_sink("python3 sink.py", dir.path(), dir / "failures", 3);
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.code == eosim::cli::kExitBadInput);
    CHECK(outcome.err.find(what) != std::string::npos);
    CHECK(outcome.err.find(where) != std::string::npos);
}

}  // namespace

TEST_CASE(
    "process sink, asynchronous calls: the Python AsyncSinkWriter passes the contract level at its defaults",
    "[process_sink][heavy]") {
    const TempDir dir;
    const AsyncProcessOutcome outcome = run_async_process_sink(
        "python3 sink.py", async_example("python-async-sink"), dir / "failures");
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.code == eosim::cli::kExitMet);
    CHECK(outcome.out.find("asynchronous calls sent") !=
          std::string::npos);  // the probe found them: their steps were drawn
}

TEST_CASE(
    "process sink, asynchronous calls: a pre-commit that does not wait for requests in flight is caught at the defaults",
    "[process_sink]") {
    const TempDir dir;
    const AsyncProcessOutcome outcome =
        run_async_process_sink("python3 ../python-async-sink/sink.py --no-wait",
                               async_example("python-async-sink-no-wait"), dir / "failures");
    INFO(outcome.out << outcome.err);
    REQUIRE(outcome.code == eosim::cli::kExitNotMet);
    CHECK(outcome.out.find("(the last value of the completed checkpoints) but shows") !=
          std::string::npos);  // lost with its request
    CHECK(std::filesystem::exists(dir / "failures" / "contract-seed1.json"));
}

TEST_CASE("process sink, asynchronous calls: misuse is a protocol error saying what was expected",
          "[process_sink]") {
    SECTION("an asynchronous call without \"async\": true in the hello") {
        require_async_protocol_error(
            misbehaving_async_sink(
                R"({"type": "hello", "protocol": 1, "systems": ["documents"], "output": {"system": "documents", "index": "t"}})",
                kBulkCall),
            "an asynchronous call, but the hello does not say \"async\": true");
    }
    SECTION("an asynchronous call to a system eosim calls only synchronously") {
        require_async_protocol_error(
            misbehaving_async_sink(
                kAsyncHello,
                "send({'type': 'call', 'async': True, 'system': 'kafka', 'op': 'partitions', 'topic': 't'}); "
                "sys.stdin.readline()"),
            "expected \"system\": key_values, documents or objects in an asynchronous call");
    }
    SECTION("an asynchronous call eosim cannot make, reported when its outcome comes back") {
        require_async_protocol_error(
            misbehaving_async_sink(
                kAsyncHello,
                "send({'type': 'call', 'async': True, 'system': 'documents', 'op': 'shred'}); sys.stdin.readline()"),
            "a call eosim cannot make (asynchronous call 1): unknown op \"shred\" of documents");
    }
    SECTION("an answer to prepare_pre_commit without \"ready\"") {
        std::string script = misbehaving_async_sink(kAsyncHello, kBulkCall);
        const std::string ready = "answer['ready'] = True";
        script.replace(script.find(ready), ready.size(), "pass");
        require_async_protocol_error(
            script, "expected \"ready\": true or false in the answer to prepare_pre_commit");
    }
    SECTION("\"async\" in the hello that is not a boolean") {
        std::string hello = kAsyncHello;
        hello.replace(hello.find("True"), 4, "'yes'");
        require_async_protocol_error(misbehaving_async_sink(hello, "pass"),
                                     "the sink's hello: expected \"async\": true or false",
                                     "options/command");
    }
}
