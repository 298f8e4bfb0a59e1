// cli::worker_pool: children run at most `jobs` at a time; exit codes, signals, a wall-clock
// deadline (the whole process group is killed), an address-space limit, a flood of output and a
// command that cannot start all come back as outcomes, and the pool goes on. In-process tasks
// share resident processes, each task with its own output and the streams' formatting reset, and a
// task that dies in a resident that ran others first is run again in a fresh one.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <new>
#include <string_view>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/worker_pool.h"

namespace eosim::cli {
namespace {

WorkerTask shell(size_t id, const std::string& script) {
    return WorkerTask{id, {"/bin/sh", "-c", script}};
}

std::map<size_t, WorkerOutcome> run_all(const std::vector<WorkerTask>& tasks, size_t jobs,
                                        WorkerLimits limits = {}) {
    std::map<size_t, WorkerOutcome> outcomes;
    WorkerPool pool(jobs, limits);
    const bool completed = pool.run(
        tasks, [&](WorkerOutcome&& o) { outcomes[o.id] = std::move(o); }, [] { return false; });
    CHECK(completed);
    return outcomes;
}

TEST_CASE("worker pool: output, exit codes and signals come back per task", "[cli]") {
    const auto outcomes = run_all(
        {shell(0, "echo hello; echo oops >&2; exit 0"), shell(1, "exit 1"),
         shell(2, "echo before >&2; kill -ABRT $$"), shell(3, "kill -SEGV $$"), shell(4, "exit 3")},
        2);
    REQUIRE(outcomes.size() == 5);
    CHECK(outcomes.at(0).exit_code == 0);
    CHECK(outcomes.at(0).out == "hello\n");
    CHECK(outcomes.at(0).err_tail == "oops\n");
    CHECK(outcomes.at(1).exit_code == 1);
    CHECK(outcomes.at(2).term_signal == SIGABRT);
    CHECK(outcomes.at(2).err_tail == "before\n");
    CHECK(outcomes.at(3).term_signal == SIGSEGV);
    CHECK(outcomes.at(4).exit_code == 3);
    CHECK(signal_name(SIGABRT) == "SIGABRT");
}

TEST_CASE("worker pool: a task past its deadline is killed with everything it started", "[cli]") {
    WorkerLimits limits;
    limits.wall_seconds = 0.3;
    const auto start = std::chrono::steady_clock::now();
    // The grandchild (sleep) holds the pipes: only killing the process group ends it.
    const auto outcomes =
        run_all({shell(0, "sleep 30 & sleep 30; echo never"), shell(1, "echo quick")}, 2, limits);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(outcomes.at(0).timed_out);
    CHECK(outcomes.at(0).term_signal == SIGKILL);
    CHECK(outcomes.at(0).out.empty());
    CHECK(outcomes.at(1).out == "quick\n");
    CHECK(elapsed < 10);
}

TEST_CASE("worker pool: at most `jobs` tasks run at once", "[cli]") {
    std::vector<WorkerTask> tasks;
    for (size_t i = 0; i < 6; ++i) tasks.push_back(shell(i, "date +%s%N; sleep 0.2; date +%s%N"));
    const auto outcomes = run_all(tasks, 2);
    // Count, at each start, how many tasks were running.
    std::vector<std::pair<long long, long long>> spans;
    for (const auto& [id, o] : outcomes) {
        const auto newline = o.out.find('\n');
        spans.emplace_back(std::stoll(o.out.substr(0, newline)),
                           std::stoll(o.out.substr(newline + 1)));
    }
    size_t most = 0;
    for (const auto& [start, end] : spans) {
        const size_t running = std::count_if(
            spans.begin(), spans.end(),
            [&, s = start](const auto& other) { return other.first <= s && s < other.second; });
        most = std::max(most, running);
    }
    CHECK(most <= 2);
    CHECK(most >= 1);
}

TEST_CASE("worker pool: a flood of output is cut, a missing program reported", "[cli]") {
    WorkerLimits limits;
    limits.output_bytes_max = 100'000;
    const auto outcomes =
        run_all({shell(0, "yes"), WorkerTask{1, {"/nonexistent/program"}}}, 2, limits);
    CHECK(outcomes.at(0).output_overflow);
    CHECK(outcomes.at(1).exit_code == 127);
    CHECK_THAT(outcomes.at(1).err_tail, Catch::Contains("/nonexistent/program"));
}

TEST_CASE("worker pool: the address-space limit stops a memory hog", "[cli]") {
    if (!memory_limit_supported()) {
        WARN("skipped: memory limits are not enforced in sanitizer builds");
        return;
    }
    WorkerLimits limits;
    limits.memory_bytes = 64ull << 20;
    // The shell cannot grow a 200 MB string under a 64 MB address space.
    const auto outcomes =
        run_all({shell(0, "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}")}, 1, limits);
    const WorkerOutcome& o = outcomes.at(0);
    CHECK(o.out != "200000000\n");
}

// The entry point of the in-process workers below: what argv[1] says.
int in_process_entry(int argc, char** argv) {
    const std::string_view what = argc > 1 ? argv[1] : "";
    if (what == "echo") {
        std::cout << argv[2] << '\n';  // buffered: the child must flush it before it leaves
        std::cerr << "oops\n";
        return 4;
    }
    if (what == "abort") std::abort();
    if (what == "hang") std::this_thread::sleep_for(std::chrono::seconds(30));
    if (what == "pid") {
        std::cout << ::getpid() << '\n';
        return 0;
    }
    if (what == "hex") {  // leaves its stream state behind: the next task must not inherit it
        std::cout << std::hex << 255 << '\n';
        return 0;
    }
    if (what == "decimal") {
        std::cout << 255 << '\n';
        return 0;
    }
    if (what == "abort-after-others") {  // dies only in a process that has run a task before
        static int tasks_before = 0;     // of this process: grows in the resident
        ++tasks_before;
        if (tasks_before > 1) std::abort();
        std::cout << "fresh\n";
        return 0;
    }
    if (what == "hog") {
        std::vector<char> hog(size_t{4} << 30,
                              'a');  // 4 GB under a 1 GB limit: bad_alloc, terminate
        return hog.back() == 'a' ? 0 : 1;
    }
    return 0;
}

TEST_CASE(
    "worker pool: a task naming the in-process program runs in a fork of this process, others exec",
    "[cli]") {
    const InProcessWorker in_process{"self", &in_process_entry};
    WorkerLimits limits;
    limits.wall_seconds = 0.5;
    if (memory_limit_supported()) limits.memory_bytes = 1ull << 30;
    std::cout << "buffered by the parent" << std::flush;  // flushed before the fork, never repeated
    std::cout << "\n";
    std::vector<WorkerTask> tasks = {{0, {"self", "echo", "hello"}},
                                     {1, {"self", "abort"}},
                                     {2, {"self", "hang"}},
                                     shell(3, "echo exec")};
    if (memory_limit_supported()) tasks.push_back({4, {"self", "hog"}});
    std::map<size_t, WorkerOutcome> outcomes;
    WorkerPool pool(2, limits, in_process);
    CHECK(pool.run(
        tasks, [&](WorkerOutcome&& o) { outcomes[o.id] = std::move(o); }, [] { return false; }));
    CHECK(outcomes.at(0).exit_code == 4);
    CHECK(outcomes.at(0).out == "hello\n");
    CHECK(outcomes.at(0).err_tail == "oops\n");
    CHECK(outcomes.at(1).term_signal == SIGABRT);  // with the default action, as after an exec
    CHECK(outcomes.at(2).timed_out);
    CHECK(outcomes.at(3).out == "exec\n");
    // bad_alloc escapes the entry: the child terminates, it never unwinds into the parent's stack.
    if (memory_limit_supported()) CHECK(outcomes.at(4).term_signal == SIGABRT);
}

TEST_CASE(
    "worker pool: in-process tasks share resident processes, each with its own output and a clean stream",
    "[cli]") {
    const InProcessWorker in_process{"self", &in_process_entry};
    WorkerPool pool(1, WorkerLimits{}, in_process);
    std::map<size_t, WorkerOutcome> outcomes;
    CHECK(pool.run(
        {{0, {"self", "pid"}},
         {1, {"self", "hex"}},
         {2, {"self", "decimal"}},
         {3, {"self", "pid"}},
         {4, {"self", "echo", "last"}}},
        [&](WorkerOutcome&& o) { outcomes[o.id] = std::move(o); }, [] { return false; }));
    REQUIRE(outcomes.size() == 5);
    const std::string first_pid = outcomes.at(0).out;
    CHECK(first_pid != std::to_string(::getpid()) + "\n");  // not this process
    CHECK(outcomes.at(3).out == first_pid);                 // one resident ran them all
    CHECK(outcomes.at(1).out == "ff\n");
    CHECK(outcomes.at(2).out == "255\n");  // std::hex of the task before is gone
    CHECK(outcomes.at(4).exit_code == 4);
    CHECK(outcomes.at(4).out == "last\n");
    CHECK(outcomes.at(4).err_tail == "oops\n");
}

TEST_CASE("worker pool: a task that dies in a resident that ran others is run again in a fresh one",
          "[cli]") {
    const InProcessWorker in_process{"self", &in_process_entry};
    WorkerPool pool(1, WorkerLimits{}, in_process);
    std::map<size_t, WorkerOutcome> outcomes;
    size_t reported = 0;
    CHECK(pool.run(
        {{0, {"self", "pid"}},
         {1, {"self", "abort-after-others"}},
         {2, {"self", "abort"}},
         {3, {"self", "pid"}}},
        [&](WorkerOutcome&& o) {
            ++reported;
            outcomes[o.id] = std::move(o);
        },
        [] { return false; }));
    CHECK(reported == 4);  // each once: the first try of a retried task is not reported
    CHECK(outcomes.at(1).exit_code == 0);  // its fresh try: what it does alone
    CHECK(outcomes.at(1).out == "fresh\n");
    CHECK(outcomes.at(2).term_signal == SIGABRT);     // dies fresh too: that is its outcome
    CHECK(outcomes.at(3).out != outcomes.at(0).out);  // a new resident after the crash
}

TEST_CASE("worker pool: an interruption kills the running tasks and reports none of them",
          "[cli]") {
    WorkerPool pool(2, WorkerLimits{});
    size_t reported = 0;
    const auto start = std::chrono::steady_clock::now();
    const bool completed = pool.run(
        {shell(0, "sleep 30"), shell(1, "sleep 30"), shell(2, "sleep 30")},
        [&](WorkerOutcome&&) { ++reported; },
        [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(200); });
    CHECK_FALSE(completed);
    CHECK(reported == 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

}  // namespace
}  // namespace eosim::cli
