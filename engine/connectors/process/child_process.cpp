#include "engine/connectors/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

extern char** environ;

namespace eosim::engine::process {

namespace {

std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& extra) {
    std::map<std::string, std::string> merged;
    std::vector<std::string> order;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        const size_t eq = text.find('=');
        if (eq == std::string::npos) continue;
        if (merged.emplace(text.substr(0, eq), text.substr(eq + 1)).second)
            order.push_back(text.substr(0, eq));
    }
    for (const auto& [name, value] : extra) {
        if (merged.find(name) == merged.end()) order.push_back(name);
        merged[name] = value;
    }
    std::vector<std::string> out;
    for (const std::string& name : order) out.push_back(name + "=" + merged[name]);
    return out;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
    std::vector<char*> out;
    for (std::string& text : texts) out.push_back(text.data());
    out.push_back(nullptr);
    return out;
}

void close_pipe(int fds[2]) {
    ::close(fds[0]);
    ::close(fds[1]);
}

}  // namespace

std::unique_ptr<ChildProcess> ChildProcess::spawn(const ChildSpec& spec, std::string* error) {
    static const bool sigpipe_ignored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
    (void)sigpipe_ignored;
    if (spec.argv.empty()) {
        *error = "the command is empty";
        return nullptr;
    }
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        *error = std::string("pipe: ") + std::strerror(errno);
        return nullptr;
    }
    if (::pipe2(out, O_CLOEXEC) != 0) {
        *error = std::string("pipe: ") + std::strerror(errno);
        close_pipe(in);
        return nullptr;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
    std::vector<std::string> argv_texts = spec.argv;
    std::vector<std::string> env_texts = environment_with(spec.env);
    std::vector<char*> argv = pointers(argv_texts);
    std::vector<char*> envp = pointers(env_texts);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    if (rc != 0) {
        *error = "cannot start " + spec.argv[0] + (spec.cwd.empty() ? "" : " in " + spec.cwd) +
                 ": " + std::strerror(rc);
        ::close(in[1]);
        ::close(out[0]);
        return nullptr;
    }
    return std::unique_ptr<ChildProcess>(new ChildProcess(pid, in[1], out[0]));
}

ChildProcess::~ChildProcess() { kill(); }

bool ChildProcess::write_line(std::string_view line) {
    if (pid_ <= 0) return false;
    std::string text(line);
    text += '\n';
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(to_child_, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

bool ChildProcess::fill(int timeout_ms) {
    pollfd fd{from_child_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, timeout_ms);
    if (ready == 0) return false;
    if (ready < 0) return errno == EINTR;
    char chunk[65536];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) {
        closed_ = true;
        return true;
    }
    if (start_ > 0 && start_ == buffer_.size()) {
        buffer_.clear();
        start_ = 0;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
}

ChildProcess::Read ChildProcess::read_line(std::string* line, int timeout_ms) {
    using Clock = std::chrono::steady_clock;  // the watchdog only (see the header)
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const size_t newline = buffer_.find('\n', start_);
        if (newline != std::string::npos) {
            line->assign(buffer_, start_, newline - start_);
            start_ = newline + 1;
            return Read::line;
        }
        if (pid_ <= 0 || closed_) {
            line->assign(buffer_, start_, std::string::npos);
            return Read::end;
        }
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0 || !fill(static_cast<int>(left))) {
            if (Clock::now() >= deadline) return Read::timeout;
        }
    }
}

void ChildProcess::kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::close(to_child_);
    ::close(from_child_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
}

std::string ChildProcess::ending() {
    if (pid_ <= 0) return "killed by eosim";
    int status = 0;
    for (int i = 0; i < 100;
         ++i) {  // up to ~1 s for the child to finish exiting after closing stdout
        const pid_t done = ::waitpid(pid_, &status, WNOHANG);
        if (done == pid_) {
            ::close(to_child_);
            ::close(from_child_);
            pid_ = -1;
            if (WIFEXITED(status))
                return "exited with status " + std::to_string(WEXITSTATUS(status));
            if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
            return "ended";
        }
        ::usleep(10000);
    }
    return "closed its stdout but still runs";
}

}  // namespace eosim::engine::process
