#pragma once
// The process sink's line channel (docs/sink-protocol.md): one child process, newline-delimited
// JSON both ways, every line checked on arrival. Every protocol error is a ProcessSinkError naming
// the sink's command, the last message eosim sent and the offending line; eosim's commands turn it
// into exit code 2 (a broken harness input, not an oracle's verdict).
//
// Recording: every line sent and received goes to the channel's LineObserver (the sink folds it
// into the run's trace hash) and, when a TranscriptRecorder is active on this thread, into its
// transcript
// (`eosim run --check-determinism` names the first message that differs between two runs).
// A ProtocolErrorLatch, while active on this thread, keeps the first protocol error and makes every
// later channel fail at once with it (the testkit's property runs catch exceptions as failures and
// shrink: with the latch a broken sink ends the run quickly and is reported as bad input).
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/process/child_process.h"

namespace eosim::engine::process {

inline constexpr int kProtocolVersion = 1;

class ProcessSinkError : public std::runtime_error {
public:
    explicit ProcessSinkError(const std::string& message) : std::runtime_error(message) {}
};

struct ProcessCommand {
    ChildSpec spec;
    int answer_timeout_ms = 10000;  // the watchdog: how long eosim waits for one line
    std::string display() const;    // the command line, as a user would type it
};

// Records every line of every process sink on this thread while it lives (not nested).
class TranscriptRecorder {
public:
    explicit TranscriptRecorder(std::vector<std::string>* lines);
    ~TranscriptRecorder();
    TranscriptRecorder(const TranscriptRecorder&) = delete;
    TranscriptRecorder& operator=(const TranscriptRecorder&) = delete;
};

// The first difference of two transcripts ("" when equal), in words.
std::string first_transcript_difference(const std::vector<std::string>& first,
                                        const std::vector<std::string>& second);

// Keeps the first protocol error on this thread while it lives (not nested).
class ProtocolErrorLatch {
public:
    ProtocolErrorLatch();
    ~ProtocolErrorLatch();
    ProtocolErrorLatch(const ProtocolErrorLatch&) = delete;
    ProtocolErrorLatch& operator=(const ProtocolErrorLatch&) = delete;
    std::optional<std::string> error() const;
};

class ProcessChannel;

// Idle processes of a sink whose hello says "reuse": true (docs/sink-protocol.md): an instance that
// ends (its node crashed, or it was destroyed) outside an exchange hands its process back, and the
// next instance takes it instead of starting one (its "open" starts it afresh). Thread-safe.
class ProcessPool {
public:
    ProcessPool();
    ~ProcessPool();
    std::unique_ptr<ProcessChannel> take();  // nullptr when none is idle
    void give(std::unique_ptr<ProcessChannel> channel);

private:
    struct Idle;
    std::unique_ptr<Idle> idle_;
};

class ProcessChannel {
public:
    // to_sink: true for a line eosim sent, false for one the sink sent.
    using LineObserver = std::function<void(bool to_sink, const std::string& line)>;

    // Starts the command and reads its hello (checked: type, protocol version); `who` names the
    // instance in errors ("subtask 1, attempt 2"). Throws ProcessSinkError.
    ProcessChannel(const ProcessCommand& command, std::string who, LineObserver observer = {});

    const nlohmann::json& hello() const { return hello_; }
    // Hands the running process on to another instance (a sink whose hello says "reuse": true).
    void rebind(std::string who, LineObserver observer) {
        who_ = std::move(who);
        observer_ = std::move(observer);
        last_sent_.clear();
        last_received_.clear();
    }
    void send(const nlohmann::json& message);
    // The next message: a JSON object with a string "type". Throws ProcessSinkError.
    nlohmann::json receive();
    [[noreturn]] void fail(const std::string& what, const std::string& offending_line) const;
    [[noreturn]] void fail(const std::string& what) const { fail(what, last_received_); }
    void kill() { child_->kill(); }
    bool running() const { return child_->running(); }

private:
    std::string read_line();
    void record(bool to_sink, const std::string& line);

    const ProcessCommand& command_;
    std::string who_;
    LineObserver observer_;
    std::unique_ptr<ChildProcess> child_;
    std::string last_sent_;
    std::string last_received_;
    nlohmann::json hello_;
};

}  // namespace eosim::engine::process
