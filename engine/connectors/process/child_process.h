#pragma once
// A child process spoken to in lines: its stdin and stdout are pipes, its stderr is eosim's. Used
// by the process sink (process_sink.h); knows nothing of the protocol.
//
// Reading waits at most a wall-clock limit (a watchdog: the only use of the wall clock in a run,
// and it never decides anything but "the sink did not answer"). The child is killed (SIGKILL) and
// reaped when the object goes, or by kill(). SIGPIPE is ignored in eosim from the first spawn on,
// so a write to a child that has gone is an error return, not eosim's death.
#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eosim::engine::process {

struct ChildSpec {
    std::vector<std::string> argv;  // argv[0] is looked up in PATH
    std::string cwd;                // empty: eosim's own
    std::vector<std::pair<std::string, std::string>>
        env;  // added to (or replacing in) eosim's environment
};

class ChildProcess {
public:
    // Starts the child; nullptr with `*error` set when it cannot start (no such program, ...).
    static std::unique_ptr<ChildProcess> spawn(const ChildSpec& spec, std::string* error);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Writes `line` and a newline; false when the child no longer reads (it exited or closed
    // stdin).
    bool write_line(std::string_view line);
    enum class Read : uint8_t { line, end, timeout };
    // The next line (without its newline); `end` when the child closed stdout (or exited).
    Read read_line(std::string* line, int timeout_ms);
    void kill();
    bool running() const { return pid_ > 0; }
    // After `end`: how the child ended ("exited with status 3", "killed by signal 9"), waiting for
    // it at most a moment; "still running" when it has not ended.
    std::string ending();

private:
    ChildProcess(pid_t pid, int to_child, int from_child)
        : pid_(pid), to_child_(to_child), from_child_(from_child) {}
    bool fill(int timeout_ms);

    pid_t pid_;
    int to_child_;
    int from_child_;
    std::string buffer_;
    size_t start_ = 0;
    bool closed_ = false;  // the child closed its stdout
};

}  // namespace eosim::engine::process
