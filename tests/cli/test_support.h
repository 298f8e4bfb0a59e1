#pragma once
// Helpers for the cli tests: the real `eosim` binary, running a command to the
// end or in the background, and xmllint when it is installed.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/temp_dir.h"

extern char** environ;

namespace eosim::testing {

namespace fs = std::filesystem;

inline const fs::path kProjectDir = EOSIM_PROJECT_DIR;
inline const fs::path kEosim = EOSIM_BINARY;
inline const fs::path kCliFixtures = kProjectDir / "tests/cli/fixtures";

inline std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void write_text(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

// A child process started with posix_spawn; stdout and stderr go to files.
class Process {
public:
    Process(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> args;
        for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        args.push_back(nullptr);
        if (::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
        posix_spawn_file_actions_destroy(&actions);
    }
    ~Process() {
        if (pid_ > 0 && !reaped_) {
            ::kill(pid_, SIGKILL);
            wait();
        }
    }
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    bool started() const { return pid_ > 0; }
    void kill(int signal) { ::kill(pid_, signal); }
    // The exit code, or 128 + the signal that ended it.
    int wait() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

private:
    pid_t pid_ = -1;
    bool reaped_ = false;
};

struct Finished {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs a command to the end.
inline Finished run_to_end(const std::vector<std::string>& argv) {
    TempDir scratch;
    Process process(argv, scratch / "out", scratch / "err");
    Finished f;
    if (!process.started()) return f;
    f.exit_code = process.wait();
    f.out = read_text(scratch / "out");
    f.err = read_text(scratch / "err");
    return f;
}

// xmllint's path, or "" when it is not installed (the checks that need it are then skipped, saying
// so).
inline std::string xmllint() {
    for (const char* candidate : {"/usr/bin/xmllint", "/usr/local/bin/xmllint"}) {
        if (::access(candidate, X_OK) == 0) return candidate;
    }
    return "";
}

// Waits until `done()` or the timeout; returns done().
template <typename Done>
bool wait_until(Done done, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

}  // namespace eosim::testing
