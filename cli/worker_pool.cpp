#include "cli/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <utility>

#include "cli/address_sanitizer.h"
#include "reports/xml_text.h"

namespace eosim::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kErrTailBytes = 8192;
constexpr int kExecFailed = 127;

struct Child {
    size_t id = 0;
    pid_t pid = -1;
    int out_fd = -1;
    int err_fd = -1;
    Clock::time_point start;
    Clock::time_point pipes_closed;  // when both pipes reached end of file
    bool killed = false;
    WorkerOutcome outcome;
};

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

void kill_group(const Child& child) {
    ::kill(-child.pid, SIGKILL);
    ::kill(child.pid, SIGKILL);  // in case it had not yet moved to its own group
}

// After fork, in the child: its own group, death with the parent, the pipes, the limit, default
// signal handling. Only async-signal-safe calls.
void prepare_child(int stdin_fd, int out_fd, int err_fd, pid_t parent, uint64_t memory_bytes) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExecFailed);
    ::dup2(stdin_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    if (memory_bytes != 0) {
        const struct rlimit limit{memory_bytes, memory_bytes};
        ::setrlimit(RLIMIT_AS, &limit);
    }
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) ::signal(signal, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void exec_child(const std::vector<char*>& argv, int stdin_fd, int out_fd, int err_fd, pid_t parent,
                             uint64_t memory_bytes) {
    prepare_child(stdin_fd, out_fd, err_fd, parent, memory_bytes);
    ::execv(argv[0], argv.data());
    const char* reason = std::strerror(errno);
    const char prefix[] = "cannot run the worker ";
    (void)!::write(STDERR_FILENO, prefix, sizeof prefix - 1);
    (void)!::write(STDERR_FILENO, argv[0], std::strlen(argv[0]));
    (void)!::write(STDERR_FILENO, ": ", 2);
    (void)!::write(STDERR_FILENO, reason, std::strlen(reason));
    (void)!::write(STDERR_FILENO, "\n", 1);
    ::_exit(kExecFailed);
}

// Writes out what the process's C and C++ streams hold.
void flush_output() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
}

// The child of an in-process worker: the parent is single-threaded, so the copy may allocate and
// run anything; it leaves with _exit, so the parent's static objects are not destroyed twice.
// noexcept: an exception the entry lets out terminates the child, as it would end a main(); it
// must never unwind into the copy of the parent's stack.
[[noreturn]] void run_in_child(const InProcessWorker& in_process, std::vector<char*>& argv, int stdin_fd, int out_fd,
                               int err_fd, pid_t parent, uint64_t memory_bytes) noexcept {
    prepare_child(stdin_fd, out_fd, err_fd, parent, memory_bytes);
    // As an exec would: every handled signal back to its default (the parent's handlers are not
    // this child's business).
    for (int signal = 1; signal < NSIG; ++signal) {
        struct sigaction action {};
        if (::sigaction(signal, nullptr, &action) != 0) continue;
        const bool handled = (action.sa_flags & SA_SIGINFO) != 0 || (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
        if (handled) ::signal(signal, SIG_DFL);
    }
    const int code = in_process.entry(static_cast<int>(argv.size() - 1), argv.data());
    flush_output();
    ::_exit(code);
}

// Starts a task; on failure to start, the child is returned already finished.
Child spawn(const WorkerTask& task, const WorkerLimits& limits, const InProcessWorker& in_process) {
    Child child;
    child.id = task.id;
    child.outcome.id = task.id;
    child.start = Clock::now();
    std::vector<char*> argv;
    for (const std::string& arg : task.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    const int stdin_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (task.argv.empty() || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 || stdin_fd < 0) {
        child.outcome.exit_code = kExecFailed;
        child.outcome.err_tail = task.argv.empty() ? "empty command" : std::string("cannot create pipes: ") + std::strerror(errno);
        for (int fd : {out[0], out[1], err[0], err[1], stdin_fd}) {
            if (fd >= 0) ::close(fd);
        }
        return child;
    }
    const bool forked_only = in_process.entry != nullptr && task.argv[0] == in_process.program;
    if (forked_only) flush_output();  // what the parent buffered must not be written twice
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0 && forked_only) run_in_child(in_process, argv, stdin_fd, out[1], err[1], parent, limits.memory_bytes);
    if (pid == 0) exec_child(argv, stdin_fd, out[1], err[1], parent, limits.memory_bytes);
    ::close(out[1]);
    ::close(err[1]);
    ::close(stdin_fd);
    if (pid < 0) {
        child.outcome.exit_code = kExecFailed;
        child.outcome.err_tail = std::string("cannot fork: ") + std::strerror(errno);
        ::close(out[0]);
        ::close(err[0]);
        return child;
    }
    ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both agree
    child.pid = pid;
    child.out_fd = out[0];
    child.err_fd = err[0];
    return child;
}

// Reads what is there; closes the descriptor at end of file.
void drain(Child& child, int& fd, bool is_stdout, const WorkerLimits& limits) {
    char buffer[65536];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        close_fd(fd);
        if (child.out_fd < 0 && child.err_fd < 0) child.pipes_closed = Clock::now();
        return;
    }
    if (is_stdout) {
        child.outcome.out.append(buffer, static_cast<size_t>(n));
        if (child.outcome.out.size() > limits.output_bytes_max && !child.killed) {
            child.outcome.output_overflow = true;
            child.killed = true;
            kill_group(child);
        }
    } else {
        std::string& tail = child.outcome.err_tail;
        tail.append(buffer, static_cast<size_t>(n));
        if (tail.size() > 2 * kErrTailBytes) tail.erase(0, tail.size() - kErrTailBytes);
    }
}

// Reaps the child if it has exited; true when it has.
bool try_reap(Child& child) {
    if (child.pid < 0) return true;  // never started
    int status = 0;
    const pid_t r = ::waitpid(child.pid, &status, WNOHANG);
    if (r == 0) return false;
    if (r < 0 && errno == EINTR) return false;
    if (r == child.pid) {
        if (WIFEXITED(status)) child.outcome.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) child.outcome.term_signal = WTERMSIG(status);
    }
    return true;
}

void finish(Child& child) {
    close_fd(child.out_fd);
    close_fd(child.err_fd);
    std::string& tail = child.outcome.err_tail;
    if (tail.size() > kErrTailBytes) tail.erase(0, tail.size() - kErrTailBytes);
    child.outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
}

}  // namespace

std::string final_line(const std::string& text) {
    const size_t end = text.find_last_not_of("\r\n \t");
    if (end == std::string::npos) return "";
    const size_t newline = text.rfind('\n', end);
    const size_t start = newline == std::string::npos ? 0 : newline + 1;
    return text.substr(start, end - start + 1);
}

std::string last_line(const std::string& text) {
    std::string line = final_line(text);
    if (line.size() > 240) line = line.substr(0, 237) + "...";
    return reports::valid_utf8(line);
}

std::string signal_name(int signal) {
    if (const char* abbreviation = ::sigabbrev_np(signal)) return std::string("SIG") + abbreviation;
    return "signal " + std::to_string(signal);
}

bool memory_limit_supported() { return !kAddressSanitizer; }

WorkerPool::WorkerPool(size_t jobs, WorkerLimits limits, InProcessWorker in_process)
    : jobs_(std::max<size_t>(jobs, 1)), limits_(limits), in_process_(std::move(in_process)) {
    if (!memory_limit_supported()) limits_.memory_bytes = 0;
}

bool WorkerPool::run(const std::vector<WorkerTask>& tasks, const std::function<void(WorkerOutcome&&)>& on_done,
                     const std::function<bool()>& interrupted, const std::function<void()>& tick) {
    std::vector<Child> running;
    size_t next = 0;
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, bool>> owners;  // per pollfd: child index, is stdout
    while (next < tasks.size() || !running.empty()) {
        if (interrupted && interrupted()) {
            for (Child& child : running) {
                if (child.pid > 0) kill_group(child);
            }
            for (Child& child : running) {
                close_fd(child.out_fd);
                close_fd(child.err_fd);
                if (child.pid > 0) ::waitpid(child.pid, nullptr, 0);
            }
            return false;
        }
        while (running.size() < jobs_ && next < tasks.size()) running.push_back(spawn(tasks[next++], limits_, in_process_));

        const Clock::time_point now = Clock::now();
        int timeout_ms = 100;
        fds.clear();
        owners.clear();
        for (size_t i = 0; i < running.size(); ++i) {
            Child& child = running[i];
            if (child.out_fd >= 0) {
                fds.push_back({child.out_fd, POLLIN, 0});
                owners.emplace_back(i, true);
            }
            if (child.err_fd >= 0) {
                fds.push_back({child.err_fd, POLLIN, 0});
                owners.emplace_back(i, false);
            }
            if (child.out_fd < 0 && child.err_fd < 0) {
                // Pipes closed: it is exiting. Look again soon (soon-ish if it lingers).
                timeout_ms = std::min(timeout_ms, now - child.pipes_closed < std::chrono::milliseconds(50) ? 1 : 20);
            }
            if (limits_.wall_seconds > 0 && !child.killed) {
                const auto deadline = child.start + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(limits_.wall_seconds));
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
                timeout_ms = std::min<int>(timeout_ms, static_cast<int>(std::max<int64_t>(left, 0)) + 1);
            }
        }
        if (!fds.empty() || timeout_ms > 0) {
            const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
            if (ready > 0) {
                for (size_t k = 0; k < fds.size(); ++k) {
                    if (fds[k].revents == 0) continue;
                    Child& child = running[owners[k].first];
                    drain(child, owners[k].second ? child.out_fd : child.err_fd, owners[k].second, limits_);
                }
            }
        }

        const Clock::time_point after = Clock::now();
        for (size_t i = 0; i < running.size();) {
            Child& child = running[i];
            if (limits_.wall_seconds > 0 && !child.killed && child.pid > 0 &&
                after - child.start >= std::chrono::duration<double>(limits_.wall_seconds)) {
                child.outcome.timed_out = true;
                child.killed = true;
                kill_group(child);
            }
            if (child.out_fd < 0 && child.err_fd < 0 && try_reap(child)) {
                finish(child);
                WorkerOutcome outcome = std::move(child.outcome);
                running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
                on_done(std::move(outcome));
                continue;
            }
            ++i;
        }
        if (tick) tick();
    }
    return true;
}

}  // namespace eosim::cli
