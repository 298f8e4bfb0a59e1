#include "engine/connectors/process/process_channel.h"

#include <algorithm>
#include <mutex>

namespace eosim::engine::process {

namespace {

thread_local std::vector<std::string>* transcript = nullptr;
struct Latch {
    std::optional<std::string> error;
};
thread_local Latch* latch = nullptr;

std::string shown(const std::string& line) {
    constexpr size_t kMost = 400;
    if (line.size() <= kMost) return line;
    return line.substr(0, kMost) + "... (" + std::to_string(line.size()) + " characters)";
}

std::string quoted_argument(const std::string& argument) {
    if (!argument.empty() && argument.find_first_of(" \t'\"\\$") == std::string::npos)
        return argument;
    std::string out = "'";
    for (char c : argument) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::string ProcessCommand::display() const {
    std::string out;
    for (const std::string& argument : spec.argv)
        out += (out.empty() ? "" : " ") + quoted_argument(argument);
    if (!spec.cwd.empty()) out += " (in " + spec.cwd + ")";
    return out;
}

TranscriptRecorder::TranscriptRecorder(std::vector<std::string>* lines) { transcript = lines; }
TranscriptRecorder::~TranscriptRecorder() { transcript = nullptr; }

std::string first_transcript_difference(const std::vector<std::string>& first,
                                        const std::vector<std::string>& second) {
    const size_t common = std::min(first.size(), second.size());
    for (size_t i = 0; i < common; ++i) {
        if (first[i] != second[i]) {
            return "process-sink message " + std::to_string(i + 1) +
                   " differs:\n  first run:  " + shown(first[i]) +
                   "\n  second run: " + shown(second[i]);
        }
    }
    if (first.size() == second.size()) return {};
    const bool first_longer = first.size() > second.size();
    return "process-sink message " + std::to_string(common + 1) + " is only in the " +
           (first_longer ? "first" : "second") +
           " run: " + shown(first_longer ? first[common] : second[common]);
}

ProtocolErrorLatch::ProtocolErrorLatch() { latch = new Latch; }
ProtocolErrorLatch::~ProtocolErrorLatch() {
    delete latch;
    latch = nullptr;
}
std::optional<std::string> ProtocolErrorLatch::error() const { return latch->error; }

struct ProcessPool::Idle {
    std::mutex mutex;
    std::vector<std::unique_ptr<ProcessChannel>> channels;
};

ProcessPool::ProcessPool() : idle_(std::make_unique<Idle>()) {}
ProcessPool::~ProcessPool() = default;

std::unique_ptr<ProcessChannel> ProcessPool::take() {
    const std::lock_guard lock(idle_->mutex);
    if (idle_->channels.empty()) return nullptr;
    std::unique_ptr<ProcessChannel> channel = std::move(idle_->channels.back());
    idle_->channels.pop_back();
    return channel;
}

void ProcessPool::give(std::unique_ptr<ProcessChannel> channel) {
    if (!channel || !channel->running()) return;
    channel->rebind("idle", {});
    const std::lock_guard lock(idle_->mutex);
    idle_->channels.push_back(std::move(channel));
}

ProcessChannel::ProcessChannel(const ProcessCommand& command, std::string who,
                               LineObserver observer)
    : command_(command), who_(std::move(who)), observer_(std::move(observer)) {
    if (latch != nullptr && latch->error) throw ProcessSinkError(*latch->error);
    std::string error;
    child_ = ChildProcess::spawn(command_.spec, &error);
    if (!child_) fail(error, "");
    hello_ = receive();  // not recorded: a process serves several instances when its sink allows
                         // ("reuse")
    if (hello_["type"] != "hello")
        fail("expected the sink's first line to be {\"type\": \"hello\", ...}");
    const auto version = hello_.find("protocol");
    if (version == hello_.end() || !version->is_number_integer() || *version != kProtocolVersion) {
        fail("expected \"protocol\": " + std::to_string(kProtocolVersion) +
             " in the hello (the version this eosim speaks)");
    }
}

void ProcessChannel::record(bool to_sink, const std::string& line) {
    if (hello_.is_null()) return;  // the hello (see the constructor)
    if (observer_) observer_(to_sink, line);
    if (transcript != nullptr)
        transcript->push_back(who_ + (to_sink ? " <- eosim: " : " -> eosim: ") + line);
}

void ProcessChannel::send(const nlohmann::json& message) {
    last_sent_ = message.dump();
    record(true, last_sent_);
    if (!child_->write_line(last_sent_))
        fail("the sink's process no longer reads its stdin (" + child_->ending() + ")", "");
}

std::string ProcessChannel::read_line() {
    std::string line;
    switch (child_->read_line(&line, command_.answer_timeout_ms)) {
        case ChildProcess::Read::line: break;
        case ChildProcess::Read::end:
            fail("the sink's process closed its stdout (" + child_->ending() + ") before answering",
                 line);
        case ChildProcess::Read::timeout:
            fail("no answer within " + std::to_string(command_.answer_timeout_ms) +
                     " ms of wall-clock time (option \"answer_timeout_ms\")",
                 line);
    }
    last_received_ = line;
    record(false, line);
    return line;
}

nlohmann::json ProcessChannel::receive() {
    const std::string line = read_line();
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (message.is_discarded())
        fail("malformed JSON on the sink's stdout (one JSON object a line; logs go to stderr)");
    if (!message.is_object()) fail("expected a JSON object on the sink's stdout");
    const auto type = message.find("type");
    if (type == message.end() || !type->is_string())
        fail("expected a string \"type\" in the sink's message");
    return message;
}

void ProcessChannel::fail(const std::string& what, const std::string& offending_line) const {
    std::string message =
        "process sink (" + who_ + "): " + what + "\n  command: " + command_.display() +
        "\n  last message sent: " + (last_sent_.empty() ? "(none yet)" : shown(last_sent_)) +
        "\n  offending line: " + (offending_line.empty() ? "(none)" : shown(offending_line));
    if (latch != nullptr && !latch->error) latch->error = message;
    if (child_) child_->kill();
    throw ProcessSinkError(message);
}

}  // namespace eosim::engine::process
