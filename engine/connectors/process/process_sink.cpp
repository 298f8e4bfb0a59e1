#include "engine/connectors/process/process_sink.h"

#include <filesystem>

#include "engine/connectors/builtin_sinks.h"
#include "engine/connectors/process/process_calls.h"
#include "engine/connectors/process/process_channel.h"
#include "engine/connectors/process/process_output.h"
#include "sim/external/document_store.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"

namespace eosim::engine::process {

namespace {

using nlohmann::json;

constexpr sim::EventKind kProcessSinkLine{"process_sink.line"};

// What the sink's hello declared, read once when the scenario is loaded.
struct ProcessSinkSpec {
    ProcessCommand command;
    json hello;
    OutputDeclaration output;
    std::vector<std::string> systems;  // the systems the sink calls (the output's included)
    std::vector<std::string> points;   // the points it announces
    bool reuse = false;  // "reuse": true: an ended instance's process serves the next one
    bool async = false;  // "async": true: asynchronous calls, asked prepare_pre_commit
    std::shared_ptr<ProcessPool> pool = std::make_shared<ProcessPool>();
};

std::vector<std::string> string_list(const json& hello, const char* key) {
    if (!hello.contains(key)) return {};
    const json& list = hello[key];
    if (!list.is_array())
        throw std::invalid_argument(std::string("expected \"") + key +
                                    "\": an array of strings in the hello");
    std::vector<std::string> out;
    for (const json& item : list) {
        if (!item.is_string())
            throw std::invalid_argument(std::string("expected \"") + key +
                                        "\": an array of strings in the hello");
        out.push_back(item.get<std::string>());
    }
    return out;
}

json record_json(const Record& r) {
    json out = {{"key", r.key}, {"value", r.value}, {"timestamp", r.timestamp}};
    if (r.source_id != kSourceIdNone)
        out["source"] = {{"partition", source_partition(r.source_id)},
                         {"offset", source_offset(r.source_id)}};
    return out;
}

// The state a sink instance shares (weakly) with its crash listener and its timers.
struct Instance {
    std::unique_ptr<ProcessChannel> channel;
    bool crashed =
        false;  // its node crashed: the process is gone (or idle), the step's rest is dropped
    bool exchanging = false;  // eosim waits for the sink's answer

    // The instance ends: its process goes back to `pool` when it can serve another, else it is
    // killed.
    void end(const std::shared_ptr<ProcessPool>& pool) {
        if (!channel) return;
        if (pool && !exchanging) pool->give(std::move(channel));
        if (channel) channel->kill();
        channel.reset();
    }
};

class ProcessSink final : public Sink {
public:
    ProcessSink(std::shared_ptr<const ProcessSinkSpec> spec, SinkContext& context,
                const OutsideSystems& systems);
    ~ProcessSink() override { instance_->end(spec_->reuse ? spec_->pool : nullptr); }

    bool open(int64_t restored_checkpoint_id,
              const std::vector<RestoredSinkState>& restored) override;
    void write(const RecordBatch& records) override;
    bool prepare_pre_commit(int64_t checkpoint_id) override;
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override;
    void checkpoint_complete(int64_t checkpoint_id) override;
    bool settled() const override { return settled_; }
    void close() override { exchange({{"type", "close"}}); }

private:
    // Sends `message` and serves the sink's requests until its answer ("done" or "fail"); nullopt
    // when the instance's node crashed meanwhile (or before). A "fail" answer of any message but
    // pre_commit fails the task.
    std::optional<json> exchange(json message);
    json serve(const json& request);
    json set_timer(const json& request);
    json announce(const json& request);
    json issue(const json& request);
    void deliver(CallId id, const json& result);
    void observe(bool to_sink, const std::string& line);

    std::shared_ptr<const ProcessSinkSpec> spec_;
    SinkContext& context_;
    const OutsideSystems& systems_;
    std::shared_ptr<Instance> instance_ = std::make_shared<Instance>();
    sim::Prng prng_;
    int64_t seq_ = 0;
    bool settled_ = true;
};

ProcessSink::ProcessSink(std::shared_ptr<const ProcessSinkSpec> spec, SinkContext& context,
                         const OutsideSystems& systems)
    : spec_(std::move(spec)),
      context_(context),
      systems_(systems),
      prng_(context.world().prng("process_sink/" + std::string(context.vertex_id()) + "/" +
                                 context.attempt_id())) {
    const std::string who =
        (context.vertex_id().empty() ? std::string()
                                     : "vertex " + std::string(context.vertex_id()) + ", ") +
        "subtask " + std::to_string(context.subtask()) + ", attempt " +
        std::to_string(context.attempt());
    auto observer = [this](bool to_sink, const std::string& line) { observe(to_sink, line); };
    if (spec_->reuse) instance_->channel = spec_->pool->take();
    if (instance_->channel) {
        instance_->channel->rebind(who, observer);
    } else {
        instance_->channel = std::make_unique<ProcessChannel>(spec_->command, who, observer);
        if (instance_->channel->hello() != spec_->hello)
            instance_->channel->fail(
                "the hello differs from the one read when the scenario was loaded");
    }
    const std::shared_ptr<ProcessPool> pool = spec_->reuse ? spec_->pool : nullptr;
    context.world().nodes().on_crash([weak = std::weak_ptr<Instance>(instance_),
                                      weak_pool = std::weak_ptr<ProcessPool>(pool),
                                      node = context.node()](sim::NodeId crashed) {
        const std::shared_ptr<Instance> instance = weak.lock();
        if (crashed != node || !instance || instance->crashed) return;
        instance->crashed = true;
        instance->end(weak_pool.lock());
    });
}

void ProcessSink::observe(bool to_sink, const std::string& line) {
    context_.world().trace().record(kProcessSinkLine, context_.world().now(), context_.node(),
                                    sim::digest_of(line), to_sink ? "to sink" : "from sink");
}

std::optional<json> ProcessSink::exchange(json message) {
    if (instance_->crashed) return std::nullopt;
    ProcessChannel& channel = *instance_->channel;
    instance_->exchanging = true;
    struct Done {
        Instance& instance;
        ~Done() { instance.exchanging = false; }
    } done{*instance_};
    message["seq"] = ++seq_;
    message["time_ms"] = context_.world().now().ns / 1'000'000;
    message["random"] = prng_.next() >> 11;  // 53 bits: exact in every JSON reader
    channel.send(message);
    for (;;) {
        json answer = channel.receive();
        const std::string type = answer["type"];
        if (type == "done" || type == "fail") {
            if (answer.value("re", json()) != json(seq_)) {
                channel.fail(
                    "an answer to the wrong message: expected \"re\": " + std::to_string(seq_) +
                    " (the \"seq\" of " + message["type"].get<std::string>() + ")");
            }
            if (answer.contains("settled") && answer["settled"].is_boolean())
                settled_ = answer["settled"];
            return answer;
        }
        if (type != "call" && type != "set_timer" && type != "announce") {
            channel.fail("unknown message type \"" + type +
                         "\" (expected done, fail, call, set_timer or announce)");
        }
        json reply = serve(answer);
        if (instance_->crashed) return std::nullopt;
        reply["time_ms"] = context_.world().now().ns / 1'000'000;
        channel.send(reply);
    }
}

json ProcessSink::serve(const json& request) {
    const std::string type = request["type"];
    if (type == "set_timer") return set_timer(request);
    if (type == "announce") return announce(request);
    const json system = request.value("system", json());
    if (system.is_string() && std::find(spec_->systems.begin(), spec_->systems.end(),
                                        system.get<std::string>()) == spec_->systems.end()) {
        instance_->channel->fail("a call to " + system.get<std::string>() +
                                 ", which the hello does not list in \"systems\"");
    }
    if (request.contains("async") && request["async"] != json(false)) return issue(request);
    try {
        return answer_call(request, systems_, context_.node());
    } catch (const BadCall& bad) {
        instance_->channel->fail(std::string("a call eosim cannot make: ") + bad.what());
    }
}

json ProcessSink::set_timer(const json& request) {
    const auto delay = request.find("delay_ms");
    if (delay == request.end() || !delay->is_number_integer() || delay->get<int64_t>() < 0) {
        instance_->channel->fail("expected \"delay_ms\": an integer >= 0 in set_timer");
    }
    const json timer = request.value("timer", json());
    context_.after(sim::Duration::millis(delay->get<int64_t>()),
                   [this, weak = std::weak_ptr<Instance>(instance_), timer] {
                       if (weak.expired()) return;  // the instance is gone
                       exchange({{"type", "timer"}, {"timer", timer}});
                   });
    return {{"type", "result"}, {"ok", true}};
}

json ProcessSink::announce(const json& request) {
    const json point = request.value("point", json());
    if (!point.is_string() || std::find(spec_->points.begin(), spec_->points.end(),
                                        point.get<std::string>()) == spec_->points.end()) {
        instance_->channel->fail("expected \"point\": one of the hello's \"points\" in announce");
    }
    const json detail = request.value("detail", json(0));
    if (!detail.is_number_integer())
        instance_->channel->fail("expected \"detail\": an integer in announce");
    context_.announce(point.get<std::string>(), detail.get<int64_t>());
    return {{"type", "result"}, {"ok", true}};
}

// The system an asynchronous call goes to (those SinkContext::call carries), nullptr for another.
sim::external::OutsideSystem* async_system(const std::string& name, const OutsideSystems& systems) {
    if (name == "key_values") return systems.key_values;
    if (name == "documents") return systems.documents;
    if (name == "objects") return systems.objects;
    return nullptr;
}

// Applies an asynchronous call where its request lands: the synchronous call's result, or
// {"bad_call": why, "call": the call} for a call eosim cannot make (reported when the answer
// reaches the sink: a protocol error naming the call).
json land(const json& call, const OutsideSystems& systems, sim::NodeId caller) {
    try {
        json out = answer_call(call, systems, caller);
        out.erase("type");
        return out;
    } catch (const BadCall& bad) {
        return {{"bad_call", bad.what()}, {"call", call}};
    }
}

// A call with "async": true: its handle (the SinkContext::call id) at once; SinkContext::call
// carries the request (it lands after the transport's latency, applied then) and its outcome comes
// back as a "call_done" message.
json ProcessSink::issue(const json& request) {
    if (request["async"] != json(true))
        instance_->channel->fail("expected \"async\": true or false in the call");
    if (!spec_->async)
        instance_->channel->fail(
            "an asynchronous call, but the hello does not say \"async\": true");
    const json name = request.value("system", json());
    sim::external::OutsideSystem* system =
        name.is_string() ? async_system(name.get<std::string>(), systems_) : nullptr;
    if (system == nullptr)
        instance_->channel->fail(
            "expected \"system\": key_values, documents or objects in an asynchronous call");
    const CallId id = context_.call<json>(
        *system,
        [call = request, systems = systems_](sim::NodeId caller) {
            return land(call, systems, caller);
        },
        [this, weak = std::weak_ptr<Instance>(instance_)](CallId answered, const json& result) {
            if (!weak.expired()) deliver(answered, result);
        });
    return {{"type", "result"}, {"ok", true}, {"handle", id}};
}

// The answer of asynchronous call `id` reaches the sink (a live or a cancelled instance; never a
// crashed one).
void ProcessSink::deliver(CallId id, const json& result) {
    if (instance_->crashed) return;
    if (result.contains("bad_call")) {
        instance_->channel->fail("a call eosim cannot make (asynchronous call " +
                                     std::to_string(id) +
                                     "): " + result["bad_call"].get<std::string>(),
                                 result["call"].dump());
    }
    const std::optional<json> answer =
        exchange({{"type", "call_done"}, {"handle", id}, {"result", result}});
    if (answer && (*answer)["type"] == "fail")
        context_.fail("process sink: " + answer->value("reason", std::string("call_done failed")));
}

bool ProcessSink::open(int64_t restored_checkpoint_id,
                       const std::vector<RestoredSinkState>& restored) {
    json states = json::array();
    for (const RestoredSinkState& s : restored)
        states.push_back({{"subtask", s.subtask}, {"state", s.state}});
    const std::optional<json> answer = exchange({{"type", "open"},
                                                 {"vertex", context_.vertex_id()},
                                                 {"subtask", context_.subtask()},
                                                 {"attempt", context_.attempt()},
                                                 {"attempt_id", context_.attempt_id()},
                                                 {"checkpoint_id", restored_checkpoint_id},
                                                 {"restored", states}});
    if (!answer) return false;
    if ((*answer)["type"] == "fail") {
        context_.fail("process sink: " + answer->value("reason", std::string("open failed")));
        return false;
    }
    return true;
}

void ProcessSink::write(const RecordBatch& records) {
    json batch = json::array();
    for (const Record& r : records) batch.push_back(record_json(r));
    const std::optional<json> answer = exchange({{"type", "write"}, {"records", std::move(batch)}});
    if (answer && (*answer)["type"] == "fail")
        context_.fail("process sink: " + answer->value("reason", std::string("write failed")));
}

// Asked only of a sink whose hello says "async": true (a synchronous sink is always ready, and its
// exchange stays as it was: no extra message per checkpoint).
bool ProcessSink::prepare_pre_commit(int64_t checkpoint_id) {
    if (!spec_->async) return true;
    const std::optional<json> answer =
        exchange({{"type", "prepare_pre_commit"}, {"checkpoint_id", checkpoint_id}});
    if (!answer) return false;
    if ((*answer)["type"] == "fail") {
        context_.fail("process sink: " +
                      answer->value("reason", std::string("prepare_pre_commit failed")));
        return false;
    }
    const auto ready = answer->find("ready");
    if (ready == answer->end() || !ready->is_boolean())
        instance_->channel->fail(
            "expected \"ready\": true or false in the answer to prepare_pre_commit");
    return ready->get<bool>();
}

bool ProcessSink::pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) {
    const bool was_settled = settled_;
    settled_ = false;
    const std::optional<json> answer =
        exchange({{"type", "pre_commit"}, {"checkpoint_id", checkpoint_id}});
    if (!answer) {
        settled_ = was_settled;
        *error = "process sink: its TaskManager crashed during the pre-commit";
        return false;
    }
    if ((*answer)["type"] == "fail") {
        *error = "process sink: " + answer->value("reason", std::string("pre-commit failed"));
        settled_ = was_settled;
        return false;
    }
    const auto kept = answer->find("state");
    if (kept == answer->end() || !kept->is_string())
        instance_->channel->fail("expected \"state\": a string in the answer to pre_commit");
    *state = kept->get<std::string>();
    return true;
}

void ProcessSink::checkpoint_complete(int64_t checkpoint_id) {
    const bool had_settled = settled_;
    settled_ = true;
    const std::optional<json> answer =
        exchange({{"type", "checkpoint_complete"}, {"checkpoint_id", checkpoint_id}});
    if (!answer) settled_ = had_settled;
    if (answer && (*answer)["type"] == "fail")
        context_.fail("process sink: " + answer->value("reason", std::string("commit failed")));
}

class ProcessSinkConfig final : public SinkConfig {
public:
    explicit ProcessSinkConfig(std::shared_ptr<const ProcessSinkSpec> spec)
        : spec_(std::move(spec)) {
        for (const std::string& point : spec_->points) points_.push_back(point);
    }
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig&) const override {
        return std::make_unique<ProcessSink>(spec_, context, systems);
    }
    SinkOutputShape output_shape() const override { return spec_->output.shape; }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        return read_declared_output(spec_->output, systems);
    }
    std::string kafka_topic() const override {
        return spec_->output.system == "kafka" ? spec_->output.name : std::string();
    }
    std::vector<std::string> claims() const override { return {spec_->output.describe()}; }
    std::vector<std::string_view> announced_points() const override { return points_; }

private:
    std::shared_ptr<const ProcessSinkSpec> spec_;
    std::vector<std::string_view> points_;
};

ProcessCommand read_command(SinkOptions& options) {
    ProcessCommand command;
    command.spec.argv = options.strings("command");
    command.spec.cwd = options.string("cwd", std::filesystem::current_path().string());
    if (!std::filesystem::is_directory(command.spec.cwd))
        options.fail("cwd", "expected an existing folder, found \"" + command.spec.cwd + "\"");
    command.spec.cwd = std::filesystem::absolute(command.spec.cwd).string();
    if (options.has("env")) {
        for (const std::string& variable : options.strings("env")) {
            const size_t eq = variable.find('=');
            if (eq == 0 || eq == std::string::npos)
                options.fail("env", "expected NAME=VALUE strings, found \"" + variable + "\"");
            command.spec.env.emplace_back(variable.substr(0, eq), variable.substr(eq + 1));
        }
    }
    command.answer_timeout_ms =
        static_cast<int>(options.integer("answer_timeout_ms", 10000, 1, 3'600'000));
    return command;
}

// Checks the hello's systems and output against the world (the sink's systems are built for it).
void check_world(ProcessSinkSpec& spec, SinkOptions& options, const SinkWorld& world) {
    if (std::find(spec.systems.begin(), spec.systems.end(), spec.output.system) ==
        spec.systems.end())
        spec.systems.push_back(spec.output.system);
    for (const std::string& system : spec.systems) {
        const auto& known = call_systems();
        if (std::find(known.begin(), known.end(), system) == known.end() ||
            !world.has_system(system)) {
            options.fail("command", "the sink's hello lists the system \"" + system +
                                        "\", which this world cannot have");
        }
    }
    if (spec.output.system != "kafka") return;
    const std::vector<std::string> topics = world.topics();
    if (std::find(topics.begin(), topics.end(), spec.output.name) == topics.end()) {
        options.fail("command", "the sink's output topic \"" + spec.output.name +
                                    "\" is not one of the world's topics");
    }
}

std::shared_ptr<const SinkConfig> configure_process_sink(SinkOptions& options, const std::string&,
                                                         const SinkWorld& world) {
    auto spec = std::make_shared<ProcessSinkSpec>();
    spec->command = read_command(options);
    try {
        auto channel = std::make_unique<ProcessChannel>(spec->command, "started to read its hello");
        spec->hello = channel->hello();
        spec->output = read_output_declaration(spec->hello.value("output", json()));
        spec->systems = string_list(spec->hello, "systems");
        spec->points = string_list(spec->hello, "points");
        const json reuse = spec->hello.value("reuse", json(false));
        if (!reuse.is_boolean()) throw std::invalid_argument("expected \"reuse\": true or false");
        spec->reuse = reuse.get<bool>();
        const json async = spec->hello.value("async", json(false));
        if (!async.is_boolean()) throw std::invalid_argument("expected \"async\": true or false");
        spec->async = async.get<bool>();
        if (spec->reuse) spec->pool->give(std::move(channel));
    } catch (const ProcessSinkError& error) {
        options.fail("command", error.what());
    } catch (const std::invalid_argument& error) {
        options.fail("command",
                     std::string("the sink's hello: ") + error.what() + " (docs/sink-protocol.md)");
    }
    check_world(*spec, options, world);
    return std::make_shared<ProcessSinkConfig>(std::move(spec));
}

}  // namespace

}  // namespace eosim::engine::process

namespace eosim::engine {

void register_process_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "process",
        "a sink in any language: a child process speaking newline-delimited JSON on stdin/stdout "
        "(docs/sink-protocol.md; options: command, cwd, env, answer_timeout_ms)",
        process::configure_process_sink});
}

}  // namespace eosim::engine
