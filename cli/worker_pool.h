#pragma once
// Runs commands as child processes, a bounded number at a time, so that whatever one of them does
// (crash, abort, hang, eat all memory, print garbage) is only that one's outcome. The suite runs
// every scenario x seed as `eosim run FILE --seed N --json` this way.
//
// Each child: its own process group (so a deadline kills it and anything it started), stdin from
// /dev/null, stdout and stderr to pipes the parent drains with poll() (a child never blocks on a
// full pipe), an address-space limit (setrlimit RLIMIT_AS; skipped in AddressSanitizer builds,
// whose shadow memory needs terabytes of address space), and death when the parent dies
// (PR_SET_PDEATHSIG). The parent enforces a wall-clock deadline by killing the process group.
//
// A command that names this very program (the suite's and the sensitivity check's workers) need
// not be exec'd: with an InProcessWorker it runs in a resident worker, a fork of the parent that
// calls the program's entry point with the command's argv, answers the exit code, and waits for the
// next task (at most `jobs` residents; each task gets its own stdout and stderr pipes, passed over
// the resident's socket, and the C++ streams' formatting as a new process has it). Everything above
// holds for it too (own group, pipes, limit, deadline: a resident that is killed or dies is not
// reused). What it saves: the exec, the dynamic loader (RocksDB's library alone has ~10,000
// relocations) and the static initialisers, about 7 ms of CPU a run against a run's 20-40 ms, and
// a fork's page faults (a fresh heap and copy-on-write) a run: a third of a suite's CPU. A task
// that dies of a signal in a resident that had run others before is run again in a fresh one, and
// only that outcome is reported: a run's verdict never depends on what ran before it in the same
// process. The parent must be single-threaded (it is: the pool polls) so that a fork may allocate
// freely.
//
// Not here: what a command means or how its output reads (suite_command.cpp and
// sensitivity_check.cpp do that).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eosim::cli {

struct WorkerLimits {
    double wall_seconds = 60;             // kill a child still running after this long (0: never)
    uint64_t memory_bytes = 0;            // RLIMIT_AS of a child (0: none)
    size_t output_bytes_max = 64u << 20;  // kill a child that prints more than this on stdout
};

struct WorkerTask {
    size_t id = 0;                  // handed back in the outcome
    std::vector<std::string> argv;  // argv[0]: the program (a path; not looked up in PATH)
};

// The program's own entry point and the path that names it (argv[0] of a task).
struct InProcessWorker {
    std::string program;  // a task whose argv[0] is this runs in-process
    int (*entry)(int argc, char** argv) = nullptr;
};

struct WorkerOutcome {
    size_t id = 0;
    int exit_code = -1;            // when it exited; -1 when killed by a signal
    int term_signal = 0;           // when killed by a signal
    bool timed_out = false;        // killed at the wall-clock deadline
    bool output_overflow = false;  // killed for printing more than output_bytes_max
    std::string out;               // all of its stdout
    std::string err_tail;          // the last few KB of its stderr
    double wall_seconds = 0;       // from start to exit
};

// "SIGABRT", "SIGSEGV", ... ("signal 42" for one without a name).
std::string signal_name(int signal);

// The last line of `text` that is not blank, whole: a worker answers with its last line of stdout.
std::string final_line(const std::string& text);
// The same for a message (a worker's last line of stderr): cut at 240 characters, valid UTF-8.
std::string last_line(const std::string& text);

// Whether memory limits are enforced in this build (not under AddressSanitizer).
bool memory_limit_supported();

class WorkerPool {
public:
    WorkerPool(size_t jobs, WorkerLimits limits, InProcessWorker in_process = {});

    // Runs `tasks` in order, at most `jobs` at a time, and hands each outcome to `on_done` as it
    // comes (completion order). `tick` is called at least every 100 ms (progress display).
    // When `interrupted()` turns true, running children are killed, their outcomes dropped, and
    // run returns false; otherwise true once every task has finished.
    bool run(const std::vector<WorkerTask>& tasks,
             const std::function<void(WorkerOutcome&&)>& on_done,
             const std::function<bool()>& interrupted, const std::function<void()>& tick = {});

private:
    size_t jobs_;
    WorkerLimits limits_;
    InProcessWorker in_process_;
};

}  // namespace eosim::cli
