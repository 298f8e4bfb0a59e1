#include "cli/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <utility>

#include "cli/address_sanitizer.h"
#include "reports/xml_text.h"

namespace eosim::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kErrTailBytes = 8192;
constexpr int kExecFailed = 127;

// A resident worker: a fork of this process that runs in-process tasks one after another. It
// waits on its end of a socket for a task (its command line, and the write ends of the task's
// stdout and stderr pipes), runs the entry point with them as its stdout and stderr, closes them
// and answers the exit code. Not reused: a resident that died or was killed.
struct Resident {
    pid_t pid = -1;
    int control_fd = -1;  // the parent's end of the socket
    size_t served = 0;    // tasks handed to it so far
};

struct Child {
    size_t task = 0;  // index in the task list
    pid_t pid = -1;   // the process running it: its own, or the resident's
    int out_fd = -1;
    int err_fd = -1;
    Resident resident;  // the resident running it (pid -1: none, a process of its own)
    bool resident_was_fresh = false;  // it had run no task before this one
    std::string answer;               // the resident's answer so far: the exit code, 4 bytes
    Clock::time_point start;
    Clock::time_point pipes_closed;  // when both pipes reached end of file
    bool killed = false;
    WorkerOutcome outcome;

    bool on_resident() const { return resident.pid > 0; }
    bool answered() const { return answer.size() == sizeof(int32_t); }
};

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

void kill_group(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);  // in case it had not yet moved to its own group
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
        const struct rlimit limit { memory_bytes, memory_bytes };
        ::setrlimit(RLIMIT_AS, &limit);
    }
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) ::signal(signal, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void exec_child(const std::vector<char*>& argv, int stdin_fd, int out_fd, int err_fd,
                             pid_t parent, uint64_t memory_bytes) {
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

bool send_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

bool read_all(int fd, char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::read(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// The first message of a task: its length, with room for the two descriptors it carries.
struct LengthMessage {
    explicit LengthMessage(uint64_t* length) : iov{length, sizeof *length} {
        header.msg_iov = &iov;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof control;
    }
    LengthMessage(const LengthMessage&) = delete;
    LengthMessage& operator=(const LengthMessage&) = delete;

    iovec iov;
    alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
    msghdr header{};
};

// A task on a resident's socket: its length (8 bytes) carrying the two pipe ends, then the command
// line, every argument ended by a NUL.
bool send_task(int control_fd, const std::vector<std::string>& argv, int out_fd, int err_fd) {
    std::string payload;
    for (const std::string& arg : argv) payload.append(arg).push_back('\0');
    uint64_t length = payload.size();
    LengthMessage message(&length);
    cmsghdr* rights = CMSG_FIRSTHDR(&message.header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(2 * sizeof(int));
    const int fds[2] = {out_fd, err_fd};
    std::memcpy(CMSG_DATA(rights), fds, sizeof fds);
    ssize_t n = -1;
    do {
        n = ::sendmsg(control_fd, &message.header, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == static_cast<ssize_t>(sizeof length) &&
           send_all(control_fd, payload.data(), payload.size());
}

// The resident's side of send_task. False at end of file (the parent closed the socket).
bool receive_task(int control_fd, std::vector<std::string>& argv, int& out_fd, int& err_fd) {
    uint64_t length = 0;
    LengthMessage message(&length);
    ssize_t n = -1;
    do {
        n = ::recvmsg(control_fd, &message.header, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n == 0) return false;
    const cmsghdr* rights = CMSG_FIRSTHDR(&message.header);
    if (n != static_cast<ssize_t>(sizeof length) || rights == nullptr ||
        rights->cmsg_type != SCM_RIGHTS || rights->cmsg_len != CMSG_LEN(2 * sizeof(int))) {
        ::_exit(kExecFailed);  // not what the parent sends: nothing sensible to run
    }
    int fds[2];
    std::memcpy(fds, CMSG_DATA(rights), sizeof fds);
    out_fd = fds[0];
    err_fd = fds[1];
    std::string payload(length, '\0');
    if (!read_all(control_fd, payload.data(), payload.size())) ::_exit(kExecFailed);
    argv.clear();
    for (size_t begin = 0; begin < payload.size();) {
        const size_t end = payload.find('\0', begin);
        argv.push_back(payload.substr(begin, end - begin));
        begin = end + 1;
    }
    return true;
}

// The descriptor a resident keeps its socket on; it closes every one above (other residents'
// sockets and tasks' pipes it inherited: holding them would keep their ends from closing).
constexpr int kResidentControlFd = 3;

void close_descriptors_above(int fd) {
    if (::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0) == 0) return;
    struct rlimit open_files {};
    ::getrlimit(RLIMIT_NOFILE, &open_files);
    for (rlim_t other = static_cast<rlim_t>(fd) + 1; other < open_files.rlim_cur; ++other)
        ::close(static_cast<int>(other));
}

// A resident's life: the parent is single-threaded, so the copy may allocate and run anything; it
// leaves with _exit, so the parent's static objects are not destroyed twice. noexcept: an
// exception the entry lets out terminates the resident, as it would end a main(); it must never
// unwind into the copy of the parent's stack.
[[noreturn]] void serve(const InProcessWorker& in_process, int control_fd, pid_t parent,
                        uint64_t memory_bytes) noexcept {
    const int null_fd = ::open("/dev/null", O_RDWR);
    prepare_child(null_fd, null_fd, null_fd, parent, memory_bytes);
    // As an exec would: every handled signal back to its default (the parent's handlers are not
    // this child's business).
    for (int signal = 1; signal < NSIG; ++signal) {
        struct sigaction action {};
        if (::sigaction(signal, nullptr, &action) != 0) continue;
        const bool handled = (action.sa_flags & SA_SIGINFO) != 0 ||
                             (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
        if (handled) ::signal(signal, SIG_DFL);
    }
    if (control_fd != kResidentControlFd) ::dup2(control_fd, kResidentControlFd);
    close_descriptors_above(kResidentControlFd);
    // Each task starts with the streams as a new process has them, whatever the last one set.
    std::ios out_format(nullptr);
    std::ios err_format(nullptr);
    out_format.copyfmt(std::cout);
    err_format.copyfmt(std::cerr);
    std::vector<std::string> args;
    std::vector<char*> argv;
    for (;;) {
        int out_fd = -1;
        int err_fd = -1;
        if (!receive_task(kResidentControlFd, args, out_fd, err_fd)) ::_exit(0);
        ::dup2(out_fd, STDOUT_FILENO);
        ::dup2(err_fd, STDERR_FILENO);
        ::close(out_fd);
        ::close(err_fd);
        std::cout.copyfmt(out_format);
        std::cerr.copyfmt(err_format);
        std::cout.clear();
        std::cerr.clear();
        argv.clear();
        for (std::string& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        const int32_t code = in_process.entry(static_cast<int>(argv.size() - 1), argv.data());
        flush_output();
        ::dup2(STDIN_FILENO, STDOUT_FILENO);  // the task's pipes close here: its output has ended
        ::dup2(STDIN_FILENO, STDERR_FILENO);
        if (!send_all(kResidentControlFd, reinterpret_cast<const char*>(&code), sizeof code))
            ::_exit(0);
    }
}

// Forks a resident; false (and why) when it cannot.
bool start_resident(Resident& resident, const InProcessWorker& in_process, uint64_t memory_bytes,
                    std::string& error) {
    int sockets[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
        error = std::string("cannot create a socket: ") + std::strerror(errno);
        return false;
    }
    flush_output();  // what the parent buffered must not be written twice
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(sockets[0]);
        serve(in_process, sockets[1], parent, memory_bytes);
    }
    ::close(sockets[1]);
    if (pid < 0) {
        error = std::string("cannot fork: ") + std::strerror(errno);
        ::close(sockets[0]);
        return false;
    }
    ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both agree
    resident = Resident{pid, sockets[0], 0};
    return true;
}

// Ends an idle resident (or one that failed to take a task).
void stop_resident(Resident& resident) {
    close_fd(resident.control_fd);
    if (resident.pid > 0) {
        kill_group(resident.pid);
        ::waitpid(resident.pid, nullptr, 0);
    }
    resident.pid = -1;
}

// A task that did not start: finished at once, with why.
void not_started(Child& child, std::string why) {
    child.outcome.exit_code = kExecFailed;
    child.outcome.err_tail = std::move(why);
}

// A task's stdout and stderr pipes; false (the child finished, with why) when they cannot be made.
bool open_pipes(const WorkerTask& task, Child& child, int (&out)[2], int (&err)[2]) {
    if (!task.argv.empty() && ::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0)
        return true;
    not_started(child, task.argv.empty()
                           ? "empty command"
                           : std::string("cannot create pipes: ") + std::strerror(errno));
    for (int fd : {out[0], out[1], err[0], err[1]}) {
        if (fd >= 0) ::close(fd);
    }
    return false;
}

// Once the process running the task holds the pipes' write ends (or none runs it: `why`), the
// parent closes its own; the child keeps the read ends, or is finished at once.
void keep_read_ends(Child& child, int (&out)[2], int (&err)[2], const std::string& why) {
    ::close(out[1]);
    ::close(err[1]);
    if (child.pid < 0) {
        not_started(child, why);
        ::close(out[0]);
        ::close(err[0]);
        return;
    }
    child.out_fd = out[0];
    child.err_fd = err[0];
}

Child new_child(size_t index, const WorkerTask& task) {
    Child child;
    child.task = index;
    child.outcome.id = task.id;
    child.start = Clock::now();
    return child;
}

// Starts a task in a process of its own (fork and exec); on failure to start, the child is
// returned already finished.
Child spawn(size_t index, const WorkerTask& task, const WorkerLimits& limits) {
    Child child = new_child(index, task);
    std::vector<char*> argv;
    for (const std::string& arg : task.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    if (!open_pipes(task, child, out, err)) return child;
    const int stdin_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (stdin_fd < 0) {
        keep_read_ends(child, out, err,
                       std::string("cannot open /dev/null: ") + std::strerror(errno));
        return child;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) exec_child(argv, stdin_fd, out[1], err[1], parent, limits.memory_bytes);
    const std::string why =
        pid < 0 ? std::string("cannot fork: ") + std::strerror(errno) : std::string();
    ::close(stdin_fd);
    if (pid > 0) {
        ::setpgid(pid, pid);  // also done by the child; whichever runs first wins, both agree
        child.pid = pid;
    }
    keep_read_ends(child, out, err, why);
    return child;
}

// Hands a task to a resident: an idle one (one that has run nothing yet when `fresh`) or a new one.
// On failure to start, the child is returned already finished.
Child hand_over(size_t index, const WorkerTask& task, bool fresh, std::vector<Resident>& idle,
                const InProcessWorker& in_process, const WorkerLimits& limits) {
    Child child = new_child(index, task);
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    if (!open_pipes(task, child, out, err))
        return child;  // stdin: a resident's is /dev/null already
    std::string error;
    // Two tries: an idle resident may have died since its last task (then a new one).
    for (int attempt = 0; attempt < 2 && child.pid < 0; ++attempt) {
        auto usable = std::find_if(idle.begin(), idle.end(),
                                   [&](const Resident& r) { return !fresh || r.served == 0; });
        Resident resident;
        if (usable != idle.end()) {
            resident = *usable;
            idle.erase(usable);
        } else {
            if (!idle.empty()) {  // keep at most `jobs` residents: this one makes way for a fresh
                                  // one
                stop_resident(idle.back());
                idle.pop_back();
            }
            if (!start_resident(resident, in_process, limits.memory_bytes, error)) break;
        }
        if (!send_task(resident.control_fd, task.argv, out[1], err[1])) {
            error = "cannot hand the task to a worker process";
            stop_resident(resident);
            continue;
        }
        child.resident_was_fresh = resident.served == 0;
        ++resident.served;
        child.pid = resident.pid;
        child.resident = resident;
    }
    keep_read_ends(child, out, err, error);
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
            kill_group(child.pid);
        }
    } else {
        std::string& tail = child.outcome.err_tail;
        tail.append(buffer, static_cast<size_t>(n));
        if (tail.size() > 2 * kErrTailBytes) tail.erase(0, tail.size() - kErrTailBytes);
    }
}

// Reads the resident's answer; at end of file (the resident died) closes its socket.
void read_answer(Child& child) {
    char buffer[sizeof(int32_t)];
    const ssize_t n =
        ::read(child.resident.control_fd, buffer, sizeof buffer - child.answer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        close_fd(child.resident.control_fd);
        return;
    }
    child.answer.append(buffer, static_cast<size_t>(n));
}

// Reaps the child's process if it has exited; true when it has.
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

// Whether the task has ended: its pipes closed, and the resident answered or the process exited.
bool ended(Child& child) {
    if (child.out_fd >= 0 || child.err_fd >= 0) return false;
    if (child.on_resident() && child.answered()) {
        int32_t code = 0;
        std::memcpy(&code, child.answer.data(), sizeof code);
        child.outcome.exit_code = code;
        return true;
    }
    if (child.on_resident() && child.resident.control_fd >= 0) return false;  // still answering
    return try_reap(child);
}

// A task that died in a resident that had run others first is run again in a fresh one: a run's
// outcome must never depend on what ran before it in the same process.
bool worth_a_fresh_try(const Child& child) {
    return child.on_resident() && !child.resident_was_fresh && !child.answered() &&
           child.outcome.term_signal != 0 && !child.outcome.timed_out &&
           !child.outcome.output_overflow;
}

void finish(Child& child) {
    close_fd(child.out_fd);
    close_fd(child.err_fd);
    std::string& tail = child.outcome.err_tail;
    if (tail.size() > kErrTailBytes) tail.erase(0, tail.size() - kErrTailBytes);
    child.outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
}

// Kills and reaps every running task and stops the idle residents (the suite was interrupted).
void stop_everything(std::vector<Child>& running, std::vector<Resident>& idle) {
    for (Child& child : running) {
        if (child.pid > 0) kill_group(child.pid);
    }
    for (Child& child : running) {
        close_fd(child.out_fd);
        close_fd(child.err_fd);
        close_fd(child.resident.control_fd);
        if (child.pid > 0) ::waitpid(child.pid, nullptr, 0);
    }
    for (Resident& resident : idle) stop_resident(resident);
    idle.clear();
}

// The descriptors the running tasks may have something on, and whose each one is.
struct PollSet {
    enum class Pipe { out, err, answer };
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, Pipe>> owners;  // per pollfd: child index, which descriptor

    void add(int fd, size_t child, Pipe pipe) {
        fds.push_back({fd, POLLIN, 0});
        owners.emplace_back(child, pipe);
    }
};

// Fills `set` with the running tasks' open descriptors; returns how long to wait for them in ms:
// at most 100, shorter for a task that is exiting or whose wall-clock limit is near.
int gather_poll_set(const std::vector<Child>& running, const WorkerLimits& limits, PollSet& set) {
    const Clock::time_point now = Clock::now();
    int timeout_ms = 100;
    set.fds.clear();
    set.owners.clear();
    for (size_t i = 0; i < running.size(); ++i) {
        const Child& child = running[i];
        if (child.out_fd >= 0) set.add(child.out_fd, i, PollSet::Pipe::out);
        if (child.err_fd >= 0) set.add(child.err_fd, i, PollSet::Pipe::err);
        if (child.on_resident() && child.resident.control_fd >= 0 && !child.answered()) {
            set.add(child.resident.control_fd, i, PollSet::Pipe::answer);
        }
        if (child.out_fd < 0 && child.err_fd < 0 &&
            !(child.on_resident() && child.resident.control_fd >= 0)) {
            // Pipes closed and no answer to wait for: it is exiting. Look again soon (soon-ish
            // if it lingers).
            timeout_ms = std::min(
                timeout_ms, now - child.pipes_closed < std::chrono::milliseconds(50) ? 1 : 20);
        }
        if (limits.wall_seconds > 0 && !child.killed) {
            const auto deadline =
                child.start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(limits.wall_seconds));
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
            timeout_ms =
                std::min<int>(timeout_ms, static_cast<int>(std::max<int64_t>(left, 0)) + 1);
        }
    }
    return timeout_ms;
}

// Waits up to `timeout_ms` for the set's descriptors and reads what arrived.
void poll_and_read(PollSet& set, int timeout_ms, std::vector<Child>& running,
                   const WorkerLimits& limits) {
    if (set.fds.empty() && timeout_ms <= 0) return;
    if (::poll(set.fds.data(), set.fds.size(), timeout_ms) <= 0) return;
    for (size_t k = 0; k < set.fds.size(); ++k) {
        if (set.fds[k].revents == 0) continue;
        Child& child = running[set.owners[k].first];
        switch (set.owners[k].second) {
            case PollSet::Pipe::out: drain(child, child.out_fd, true, limits); break;
            case PollSet::Pipe::err: drain(child, child.err_fd, false, limits); break;
            case PollSet::Pipe::answer: read_answer(child); break;
        }
    }
}

// Kills a task over its wall-clock limit (it then ends as timed out).
void enforce_wall_limit(Child& child, const WorkerLimits& limits, Clock::time_point now) {
    if (limits.wall_seconds > 0 && !child.killed && child.pid > 0 && !child.answered() &&
        now - child.start >= std::chrono::duration<double>(limits.wall_seconds)) {
        child.outcome.timed_out = true;
        child.killed = true;
        kill_group(child.pid);
    }
}

// The tasks not yet started, the residents free for one, and the tasks running.
struct PoolState {
    std::deque<size_t> queue;
    std::vector<bool> needs_fresh;  // per task: run it in a fresh resident (it died in a used one)
    std::vector<Resident> idle;
    std::vector<Child> running;
};

// Takes the ended tasks out of `running`: each reported to `on_done`, or queued again first for a
// fresh resident (worth_a_fresh_try); a resident that answered becomes idle.
void retire_ended(PoolState& state, const WorkerLimits& limits,
                  const std::function<void(WorkerOutcome&&)>& on_done) {
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < state.running.size();) {
        Child& child = state.running[i];
        enforce_wall_limit(child, limits, now);
        if (!ended(child)) {
            ++i;
            continue;
        }
        finish(child);
        if (child.on_resident() && child.answered()) state.idle.push_back(child.resident);
        if (worth_a_fresh_try(child)) {
            state.needs_fresh[child.task] = true;
            state.queue.push_front(child.task);
        } else {
            on_done(std::move(child.outcome));
        }
        state.running.erase(state.running.begin() + static_cast<std::ptrdiff_t>(i));
    }
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

bool WorkerPool::run(const std::vector<WorkerTask>& tasks,
                     const std::function<void(WorkerOutcome&&)>& on_done,
                     const std::function<bool()>& interrupted, const std::function<void()>& tick) {
    PoolState state;
    for (size_t i = 0; i < tasks.size(); ++i) state.queue.push_back(i);
    state.needs_fresh.assign(tasks.size(), false);
    PollSet poll_set;
    const auto in_process = [&](const WorkerTask& task) {
        return in_process_.entry != nullptr && !task.argv.empty() &&
               task.argv[0] == in_process_.program;
    };
    while (!state.queue.empty() || !state.running.empty()) {
        if (interrupted && interrupted()) {
            stop_everything(state.running, state.idle);
            return false;
        }
        while (state.running.size() < jobs_ && !state.queue.empty()) {
            const size_t index = state.queue.front();
            state.queue.pop_front();
            const WorkerTask& task = tasks[index];
            state.running.push_back(in_process(task)
                                        ? hand_over(index, task, state.needs_fresh[index],
                                                    state.idle, in_process_, limits_)
                                        : spawn(index, task, limits_));
        }
        poll_and_read(poll_set, gather_poll_set(state.running, limits_, poll_set), state.running,
                      limits_);
        retire_ended(state, limits_, on_done);
        if (tick) tick();
    }
    for (Resident& resident : state.idle) stop_resident(resident);
    return true;
}

}  // namespace eosim::cli
