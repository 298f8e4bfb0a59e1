#include "scenarios/outside_system_registry.h"

#include <algorithm>

#include "engine/connectors/kafka_sink.h"
#include "engine/connectors/upsert_sink.h"
#include "sim/external/append_store.h"
#include "sim/external/coordination_service.h"
#include "sim/external/database.h"
#include "sim/external/database_workload.h"
#include "sim/external/document_store.h"
#include "sim/external/input_producer.h"
#include "sim/external/kafka.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"

namespace eosim::scenarios {

namespace {

using sim::external::Database;

// Kafka, with the scenario's topics and the outside producers that write its input into them.
class KafkaSystem final : public RunSystem {
public:
    KafkaSystem(const Scenario& s, sim::World& world, sim::NodeId node)
        : kafka_(world.scheduler(), world.network(), node, s.world.kafka) {
        for (const TopicSpec& topic : s.world.topics)
            kafka_.create_topic(topic.name, topic.partitions);
        for (const InputSpec& in : s.inputs) {
            sim::external::InputProducerSpec spec{in.topic,           in.records,   in.keys,
                                                  in.rate_per_second, in.value_min, in.value_max,
                                                  in.hot_key_percent};
            spec.event_time = in.event_time;
            spec.partition_weights = in.partition_weights;
            inputs_.push_back(std::make_unique<sim::external::InputProducer>(
                world.scheduler(), kafka_, spec, world.prng("input/" + in.topic)));
        }
    }
    void expose(engine::OutsideSystems& systems) override { systems.kafka = &kafka_; }
    void add_fault_hooks(sim::OutsideFaults& hooks) override {
        hooks.broker_unavailable = [this](sim::Time until) { kafka_.set_unavailable_until(until); };
        hooks.kafka_write_failure = [this](sim::Time until) {
            kafka_.set_write_failures_until(until);
        };
        hooks.transaction_abort = [this] { kafka_.abort_open_transactions(); };
        hooks.kafka_commit_errors = [this](sim::Time until) {
            kafka_.set_commit_errors_until(until);
        };
        hooks.kafka_commit_outcome_unknown = [this](sim::Time until) {
            kafka_.set_commit_outcome_unknown_until(until);
        };
        hooks.kafka_produce_ack_lost = [this](sim::Time until) {
            kafka_.set_produce_acks_lost_until(until);
        };
    }
    void add_input(RunInput& input) const override {
        for (const auto& producer : inputs_) {
            auto& partitions = input.topics[producer->spec().topic];
            for (size_t p = 0; p < producer->partitions().size(); ++p) {
                partitions.push_back(producer->partitions()[p]);
                input.end_offsets[{producer->spec().topic, static_cast<int32_t>(p)}] =
                    static_cast<int64_t>(producer->partitions()[p].size());
            }
        }
    }
    void start() override {
        for (const auto& producer : inputs_) producer->start();
    }
    // A read_committed reader of a Kafka sink's topic, streamed from the topic's columns in batches
    // (no unpacked copy of it exists at any time): the same records as the sink's read_output.
    std::optional<oracles::RecordMultiset> committed_content(
        const engine::SinkConfig& sink) const override {
        const auto* kafka_sink = dynamic_cast<const engine::KafkaSinkConfig*>(&sink);
        if (kafka_sink == nullptr) return std::nullopt;
        return oracles::RecordMultiset::from_columns(
            [&](const oracles::RecordMultiset::ColumnVisit& visit) {
                kafka_.for_each_committed_batch(kafka_sink->options().topic, visit);
            });
    }
    void add_figures(RunFigures& f) const override {
        const sim::external::KafkaStats& stats = kafka_.stats();
        f.transactions_committed = static_cast<int64_t>(stats.transactions_committed);
        f.transactions_aborted = static_cast<int64_t>(stats.transactions_aborted);
        f.fenced_calls = static_cast<int64_t>(stats.fenced_calls);
        f.commit_errors = static_cast<int64_t>(stats.commit_errors);
        f.commit_outcomes_unknown = static_cast<int64_t>(stats.commit_outcomes_unknown);
        f.fenced_writes = static_cast<int64_t>(stats.fenced_writes);
    }
    uint64_t content_digest() const override { return kafka_.content_digest(); }
    void add_effect_probes(EffectProbes& p,
                           std::map<std::string, std::function<uint64_t()>>&) const override {
        p.kafka_refused_calls = [this] { return kafka_.calls_refused_by_fault(); };
        p.kafka_commit_errors = [this] { return kafka_.stats().commit_errors; };
        p.kafka_commit_outcomes_unknown = [this] { return kafka_.stats().commit_outcomes_unknown; };
        p.kafka_produce_acks_lost = [this] { return kafka_.stats().produce_acks_lost; };
        p.kafka_transactions_aborted = [this] { return kafka_.stats().transactions_aborted; };
    }

private:
    sim::external::KafkaCluster kafka_;
    std::vector<std::unique_ptr<sim::external::InputProducer>> inputs_;
};

class AppendStoreSystem final : public RunSystem {
public:
    AppendStoreSystem(const Scenario&, sim::World& world, sim::NodeId node)
        : store_(world.scheduler(), world.network(), node) {}
    void expose(engine::OutsideSystems& systems) override { systems.append_store = &store_; }
    void add_fault_hooks(sim::OutsideFaults&) override {}
    void add_figures(RunFigures&) const override {}
    uint64_t content_digest() const override { return store_.content_digest(); }
    void add_effect_probes(EffectProbes&,
                           std::map<std::string, std::function<uint64_t()>>&) const override {}

private:
    sim::external::AppendStore store_;
};

// A store a scenario names (documents, key-values, objects): the generic faults under its name,
// its calls in the outside-system figures.
template <typename Model, Model* engine::OutsideSystems::*kPointer>
class NamedStore final : public RunSystem {
public:
    NamedStore(std::string name, std::unique_ptr<Model> model)
        : name_(std::move(name)), model_(std::move(model)) {}
    void expose(engine::OutsideSystems& systems) override { systems.*kPointer = model_.get(); }
    void add_fault_hooks(sim::OutsideFaults& hooks) override {
        hooks.systems.emplace(name_, model_.get());
    }
    void add_figures(RunFigures& f) const override {
        const sim::external::OutsideSystemStats& stats = model_->stats();
        f.outside_calls += static_cast<int64_t>(stats.calls);
        f.outside_calls_failed += static_cast<int64_t>(stats.failed_calls);
        f.absorbed_duplicates += static_cast<int64_t>(stats.absorbed_duplicates);
    }
    uint64_t content_digest() const override { return model_->content_digest(); }
    void add_effect_probes(
        EffectProbes&,
        std::map<std::string, std::function<uint64_t()>>& failed_calls) const override {
        failed_calls[name_] = [this] { return model_->stats().failed_calls; };
    }

private:
    std::string name_;
    std::unique_ptr<Model> model_;
};

// A database the scenario has through its parts: a CDC source's (with the application workload that
// writes it) or an upsert sink's. Its commits and failed calls count as outside calls, and the
// statements that changed nothing as absorbed duplicates.
class DatabaseSystem final : public RunSystem {
public:
    DatabaseSystem(std::string name, std::unique_ptr<Database> database)
        : name_(std::move(name)), database_(std::move(database)) {}
    void set_workload(std::unique_ptr<sim::external::DatabaseWorkload> workload) {
        workload_ = std::move(workload);
    }
    Database& database() { return *database_; }
    void expose(engine::OutsideSystems& systems) override {
        systems.databases.emplace_back(name_, database_.get());
    }
    void add_fault_hooks(sim::OutsideFaults& hooks) override {
        hooks.systems.emplace(name_, database_.get());
    }
    // A CDC job's model input: the workload table's final rows, as the application expects them.
    void add_input(RunInput& input) const override {
        if (!workload_) return;
        auto& rows = input.tables[workload_->spec().table];
        for (const auto& [key, row] : workload_->final_rows())
            rows.push_back(engine::Record{key, row.value});
    }
    void start() override {
        if (workload_) workload_->start();
    }
    void add_figures(RunFigures& f) const override {
        const Database::Stats& stats = database_->stats();
        f.outside_calls += static_cast<int64_t>(stats.commits + stats.failed_calls);
        f.outside_calls_failed += static_cast<int64_t>(stats.failed_calls);
        f.absorbed_duplicates += static_cast<int64_t>(stats.unchanged_writes);
    }
    uint64_t content_digest() const override { return database_->content_digest(); }
    void add_effect_probes(
        EffectProbes&,
        std::map<std::string, std::function<uint64_t()>>& failed_calls) const override {
        failed_calls[name_] = [this] { return database_->stats().failed_calls; };
    }

private:
    std::string name_;
    std::unique_ptr<Database> database_;
    std::unique_ptr<sim::external::DatabaseWorkload> workload_;
};

// JobManager high availability's ZooKeeper-like service: booted with its node.
class CoordinationSystem final : public RunSystem {
public:
    CoordinationSystem(const Scenario& s, sim::World& world, sim::NodeId node)
        : service_(world.scheduler(), world.network(), node, s.high_availability->request_timeout) {
        world.nodes().set_process(
            node, [this] { service_.booted(); }, [] {});
    }
    void expose(engine::OutsideSystems& systems) override { systems.coordination = &service_; }
    void add_fault_hooks(sim::OutsideFaults& hooks) override {
        hooks.systems.emplace("coordination", &service_);
    }
    void add_figures(RunFigures& f) const override {
        f.sessions_expired = static_cast<int64_t>(service_.stats().sessions_expired);
    }
    uint64_t content_digest() const override { return service_.content_digest(); }
    void add_effect_probes(
        EffectProbes&,
        std::map<std::string, std::function<uint64_t()>>& failed_calls) const override {
        failed_calls["coordination"] = [this] { return service_.stats().refused_by_fault; };
    }

private:
    sim::external::CoordinationService service_;
};

bool always(const Scenario&) { return true; }

// A store whose asynchronous calls draw their latency (the default) from the run's stream
// "latency/<name>".
template <typename Store>
std::unique_ptr<Store> with_latency(std::unique_ptr<Store> store, const sim::World& world,
                                    std::string_view name) {
    store->set_latency(sim::external::CallLatency{}, world.prng("latency/" + std::string(name)));
    return store;
}

std::vector<OutsideSystemRegistration> make_registrations() {
    return {
        {"kafka",
         "a Kafka-like transactional log (sim/external/kafka.h): the input topics and Kafka sinks' topics",
         always, false, false,
         [](const Scenario& s, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<KafkaSystem>(s, world, node);
         }},
        {"append-store",
         "an append-only store (sim/external/append_store.h): the at-least-once append sink's",
         always, false, false,
         [](const Scenario& s, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<AppendStoreSystem>(s, world, node);
         }},
        {"documents", "an Elasticsearch-like document store (sim/external/document_store.h)",
         nullptr, true, true,
         [](const Scenario&, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<
                 NamedStore<sim::external::DocumentStore, &engine::OutsideSystems::documents>>(
                 "documents", with_latency(std::make_unique<sim::external::DocumentStore>(
                                               world.scheduler(), world.network(), node,
                                               world.prng("documents")),
                                           world, "documents"));
         },
         true},
        {"key_values", "a Redis-like key-value store (sim/external/key_value_store.h)", nullptr,
         true, false,
         [](const Scenario&, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<
                 NamedStore<sim::external::KeyValueStore, &engine::OutsideSystems::key_values>>(
                 "key_values", with_latency(std::make_unique<sim::external::KeyValueStore>(
                                                world.scheduler(), world.network(), node),
                                            world, "key_values"));
         },
         true},
        {"objects", "an S3/HDFS-like object store (sim/external/object_store.h)", nullptr, true,
         false,
         [](const Scenario&, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<
                 NamedStore<sim::external::ObjectStore, &engine::OutsideSystems::objects>>(
                 "objects", with_latency(std::make_unique<sim::external::ObjectStore>(
                                             world.scheduler(), world.network(), node),
                                         world, "objects"));
         },
         true},
        {engine::kSinkDatabase,
         "a MySQL-like database with a binlog, for a user's database sink (sim/external/database.h)",
         nullptr, true, false,
         [](const Scenario&, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<DatabaseSystem>(
                 std::string(engine::kSinkDatabase),
                 std::make_unique<Database>(world.scheduler(), world.network(), node));
         },
         true},
        {engine::kCdcSourceDatabase,
         "a MySQL-like database with a binlog (sim/external/database.h): a CDC source's",
         [](const Scenario& s) { return s.database.has_value(); }, true, false,
         [](const Scenario& s, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             auto system = std::make_unique<DatabaseSystem>(
                 std::string(engine::kCdcSourceDatabase),
                 std::make_unique<Database>(world.scheduler(), world.network(), node,
                                            s.database->options));
             system->set_workload(std::make_unique<sim::external::DatabaseWorkload>(
                 world.scheduler(), system->database(), node, s.database->tables,
                 s.database->workload, world.prng("database/workload")));
             return system;
         },
         true},
        {engine::kUpsertTargetDatabase,
         "a MySQL-like database (sim/external/database.h): an upsert sink's",
         [](const Scenario& s) { return s.has_upsert_sink(); }, true, false,
         [](const Scenario& s, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             auto database = std::make_unique<Database>(world.scheduler(), world.network(), node);
             for (const engine::VertexSpec& v : s.job.vertices) {
                 if (const auto* upsert = engine::upsert_sink_options(v))
                     database->create_table(upsert->table);
             }
             return std::make_unique<DatabaseSystem>(std::string(engine::kUpsertTargetDatabase),
                                                     std::move(database));
         },
         true},
        {"coordination",
         "a ZooKeeper-like coordination service (sim/external/coordination_service.h): JobManager HA's",
         [](const Scenario& s) { return s.high_availability.has_value(); }, true, false,
         [](const Scenario& s, sim::World& world, sim::NodeId node) -> std::unique_ptr<RunSystem> {
             return std::make_unique<CoordinationSystem>(s, world, node);
         }},
    };
}

bool has_system(const Scenario& s, const OutsideSystemRegistration& r) {
    if (r.present != nullptr) return r.present(s);
    return std::find(s.outside_systems.begin(), s.outside_systems.end(), r.name) !=
           s.outside_systems.end();
}

}  // namespace

const std::vector<OutsideSystemRegistration>& outside_system_registrations() {
    static const std::vector<OutsideSystemRegistration> registrations = make_registrations();
    return registrations;
}

const OutsideSystemRegistration* find_outside_system(std::string_view name) {
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

std::vector<std::string> optional_outside_system_names() {
    std::vector<std::string> names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.present == nullptr) names.emplace_back(r.name);
    }
    return names;
}

bool is_optional_outside_system(std::string_view name) {
    const OutsideSystemRegistration* r = find_outside_system(name);
    return r != nullptr && r->present == nullptr;
}

std::vector<std::string> scenario_fault_systems(const Scenario& scenario, bool races) {
    std::vector<std::string> names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.present != nullptr && r.generic_faults && (!races || r.call_races) &&
            r.present(scenario))
            names.emplace_back(r.name);
    }
    return names;
}

RunOutsideSystems::RunOutsideSystems(const Scenario& scenario, sim::World& world) {
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (!has_system(scenario, r)) continue;
        const sim::NodeId node = world.nodes().add(std::string(r.name));
        built_.push_back(r.make(scenario, world, node));
        built_.back()->expose(systems_);
    }
}

sim::OutsideFaults RunOutsideSystems::fault_hooks() const {
    sim::OutsideFaults hooks;
    for (const auto& system : built_) system->add_fault_hooks(hooks);
    return hooks;
}

RunInput RunOutsideSystems::input() const {
    RunInput input;
    for (const auto& system : built_) system->add_input(input);
    return input;
}

void RunOutsideSystems::start() {
    for (const auto& system : built_) system->start();
}

oracles::RecordMultiset RunOutsideSystems::committed_content(const engine::SinkConfig& sink) const {
    for (const auto& system : built_) {
        if (auto content = system->committed_content(sink)) return std::move(*content);
    }
    return oracles::RecordMultiset(sink.read_output(systems_));
}

void RunOutsideSystems::add_figures(RunFigures& figures) const {
    for (const auto& system : built_) system->add_figures(figures);
}

uint64_t RunOutsideSystems::state_hash() const {
    uint64_t hash = 0x452821e638d01377ULL;
    for (const auto& system : built_) hash = sim::digest_mix(hash, system->content_digest());
    return hash;
}

EffectProbes RunOutsideSystems::effect_probes() const {
    EffectProbes probes;
    std::map<std::string, std::function<uint64_t()>> failed_calls;
    for (const auto& system : built_) system->add_effect_probes(probes, failed_calls);
    probes.system_failed_calls = [failed_calls](const std::string& system) -> uint64_t {
        const auto it = failed_calls.find(system);
        return it == failed_calls.end() ? 0 : it->second();
    };
    return probes;
}

}  // namespace eosim::scenarios
