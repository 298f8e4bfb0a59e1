#include "scenarios/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string_view>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/connectors/kafka_sink.h"
#include "engine/connectors/sink_registry.h"
#include "engine/connectors/upsert_sink.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/protocol_points.h"
#include "oracles/at_least_once_output_oracle.h"
#include "oracles/every_sink_oracle.h"
#include "oracles/exactly_once_output_oracle.h"
#include "oracles/freshness_oracle.h"
#include "oracles/liveness_oracle.h"
#include "oracles/mirror_oracle.h"
#include "oracles/no_key_backwards_oracle.h"
#include "oracles/reference_model.h"
#include "oracles/state_after_restore_oracle.h"
#include "oracles/storage_oracle.h"
#include "oracles/verification_output_oracle.h"
#include "oracles/visibility_oracle.h"
#include "oracles/window_oracle.h"
#include "scenarios/coverage.h"
#include "scenarios/deployment_run.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/point_reach.h"
#include "scenarios/random_faults.h"
#include "sim/external/append_store.h"
#include "sim/external/coordination_service.h"
#include "sim/external/database.h"
#include "sim/external/database_workload.h"
#include "sim/external/input_producer.h"
#include "sim/external/kafka.h"
#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::scenarios {

namespace {

// Hands every engine notification to each oracle.
class ObserverFanout final : public engine::RunObserver {
public:
    void add(engine::RunObserver* observer) { observers_.push_back(observer); }
    void checkpoint_triggered(sim::Time t, int64_t id) override { each([&](auto* o) { o->checkpoint_triggered(t, id); }); }
    void checkpoint_completed(sim::Time t, int64_t id, const engine::SourceOffsets& offsets) override {
        each([&](auto* o) { o->checkpoint_completed(t, id, offsets); });
    }
    void checkpoint_aborted(sim::Time t, int64_t id, engine::CheckpointFailureReason reason, const std::string& detail) override {
        each([&](auto* o) { o->checkpoint_aborted(t, id, reason, detail); });
    }
    void restore_started(sim::Time t, int64_t attempt, int64_t id, const engine::SourceOffsets& offsets) override {
        each([&](auto* o) { o->restore_started(t, attempt, id, offsets); });
    }
    void keyed_state_restored(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                              const std::map<int64_t, int64_t>& state) override {
        each([&](auto* o) { o->keyed_state_restored(t, attempt, vertex, subtask, state); });
    }
    void keyed_cells_restored(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                              const std::map<engine::StateKey, int64_t>& cells) override {
        each([&](auto* o) { o->keyed_cells_restored(t, attempt, vertex, subtask, cells); });
    }
    void channel_state_restored(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                                const std::vector<engine::InFlightRecords>& in_flight) override {
        each([&](auto* o) { o->channel_state_restored(t, attempt, vertex, subtask, in_flight); });
    }
    void task_checkpoint_stats(sim::Time t, const engine::TaskCheckpointStats& stats) override {
        each([&](auto* o) { o->task_checkpoint_stats(t, stats); });
    }
    void failover(sim::Time t, int64_t attempt, const std::string& reason) override {
        each([&](auto* o) { o->failover(t, attempt, reason); });
    }
    void transaction_event(sim::Time t, const std::string& id, const char* what) override {
        each([&](auto* o) { o->transaction_event(t, id, what); });
    }
    void likely_data_loss(sim::Time t, const std::string& id, const std::string& why) override {
        each([&](auto* o) { o->likely_data_loss(t, id, why); });
    }
    void connector_event(sim::Time begin, sim::Time end, const std::string& lane, const std::string& what,
                         const std::string& detail) override {
        each([&](auto* o) { o->connector_event(begin, end, lane, what, detail); });
    }
    void watermark_advanced(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask, int64_t watermark) override {
        each([&](auto* o) { o->watermark_advanced(t, attempt, vertex, subtask, watermark); });
    }
    void job_finished(sim::Time t) override {
        // A deployment stopped with a savepoint for the next one: the run goes on, and only the
        // timeline sees that this cluster finished.
        if (hand_over_ && hand_over_()) {
            if (timeline_ != nullptr) timeline_->job_finished(t);
            return;
        }
        each([&](auto* o) { o->job_finished(t); });
    }
    void set_hand_over(std::function<bool()> hand_over, engine::RunObserver* timeline) {
        hand_over_ = std::move(hand_over);
        timeline_ = timeline;
    }
    void job_failed(sim::Time t, const std::string& reason) override { each([&](auto* o) { o->job_failed(t, reason); }); }

private:
    template <typename F>
    void each(F&& f) {
        for (engine::RunObserver* o : observers_) f(o);
    }
    std::vector<engine::RunObserver*> observers_;
    std::function<bool()> hand_over_;
    engine::RunObserver* timeline_ = nullptr;
};

const engine::VertexSpec& sink_vertex(const engine::JobSpec& job) {
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind == engine::OperatorKind::sink) return v;
    }
    throw std::logic_error("a validated scenario has a sink");
}

// Everything one run consists of, in construction order (later parts refer to earlier ones).
struct RunWorld {
    sim::World world;
    sim::NodeId kafka_node;
    sim::NodeId store_node;
    sim::external::KafkaCluster kafka;
    sim::external::AppendStore store;
    RunOutsideSystems outside;  // only those the scenario uses, each on its own node after these two
    std::vector<std::unique_ptr<sim::external::InputProducer>> inputs;
    // A CDC job's source database and its workload; an upsert sink's target database. Their nodes
    // exist only in scenarios that have them, so no other scenario's node ids move.
    std::unique_ptr<sim::external::Database> source_database;
    std::unique_ptr<sim::external::DatabaseWorkload> workload;
    std::unique_ptr<sim::external::Database> target_database;
    // JobManager HA's coordination service (node "coordination"), only in scenarios with HA.
    std::unique_ptr<sim::external::CoordinationService> coordination;

    RunWorld(const Scenario& s, uint64_t seed)
        : world(sim::WorldOptions{seed, s.world.network, s.world.storage}),
          kafka_node(world.nodes().add("kafka")),
          store_node(world.nodes().add("append-store")),
          kafka(world.scheduler(), world.network(), kafka_node, s.world.kafka),
          store(world.scheduler(), world.network(), store_node),
          outside(world, s.outside_systems) {
        for (const TopicSpec& topic : s.world.topics) kafka.create_topic(topic.name, topic.partitions);
        for (const InputSpec& in : s.inputs) {
            sim::external::InputProducerSpec spec{in.topic, in.records, in.keys, in.rate_per_second, in.value_min, in.value_max,
                                                  in.hot_key_percent};
            spec.event_time = in.event_time;
            inputs.push_back(std::make_unique<sim::external::InputProducer>(world.scheduler(), kafka, spec,
                                                                            world.prng("input/" + in.topic)));
        }
        if (s.database) {
            const sim::NodeId node = world.nodes().add("mysql-source");
            source_database = std::make_unique<sim::external::Database>(world.scheduler(), world.network(), node,
                                                                        s.database->options);
            workload = std::make_unique<sim::external::DatabaseWorkload>(world.scheduler(), *source_database, node,
                                                                         s.database->tables, s.database->workload,
                                                                         world.prng("database/workload"));
        }
        if (s.has_upsert_sink()) {
            const sim::NodeId node = world.nodes().add("mysql-target");
            target_database = std::make_unique<sim::external::Database>(world.scheduler(), world.network(), node);
            for (const engine::VertexSpec& v : s.job.vertices) {
                if (const auto* upsert = engine::upsert_sink_options(v)) target_database->create_table(upsert->table);
            }
        }
        if (s.high_availability) {
            const sim::NodeId node = world.nodes().add("coordination");
            coordination = std::make_unique<sim::external::CoordinationService>(world.scheduler(), world.network(), node,
                                                                               s.high_availability->request_timeout);
            sim::external::CoordinationService* service = coordination.get();
            world.nodes().set_process(node, [service] { service->booted(); }, [] {});
        }
    }
};

// Every outside system a generic fault can name: the registered ones the run built, and its databases.
std::map<std::string, sim::OutsideFaultTarget*> fault_targets(const RunWorld& run) {
    std::map<std::string, sim::OutsideFaultTarget*> targets = run.outside.fault_targets();
    if (run.source_database) targets.emplace("mysql-source", run.source_database.get());
    if (run.target_database) targets.emplace("mysql-target", run.target_database.get());
    if (run.coordination) targets.emplace("coordination", run.coordination.get());
    return targets;
}

// Whether a source marks idle splits (an idle_timeout in its watermark strategy).
bool source_marks_idle_splits(const engine::VertexSpec& v) { return v.watermarks && v.watermarks->idle_timeout; }

// Whether the effect of a fault that fired overlaps [from, to]: from its firing to its end (a
// crash's restart, the end of a duration); a skipped fault had no effect.
bool fault_effect_during(const sim::FaultInjector& injector, sim::Time from, sim::Time to) {
    for (const sim::FiredFault& fired : injector.fired()) {
        if (fired.skipped || fired.at > to) continue;
        const sim::FaultSpec& spec = injector.plan()[fired.plan_index];
        sim::Time end = fired.at + spec.duration;
        if (spec.kind == sim::FaultKind::crash) end = spec.restart ? fired.at + spec.restart_delay : sim::Time::never();
        if (spec.kind == sim::FaultKind::transaction_abort) end = fired.at;
        if (end >= from) return true;
    }
    return false;
}

// --- fault accounting (scenarios/fault_accounting.h) ---
EffectProbes effect_probes(RunWorld& run, DeploymentRun& deployments) {
    EffectProbes p;
    p.load_of = [&deployments](sim::NodeId node) { return deployments.load_of(node); };
    p.kafka_refused_calls = [&run] { return run.kafka.calls_refused_by_fault(); };
    p.kafka_commit_errors = [&run] { return run.kafka.stats().commit_errors; };
    p.kafka_commit_outcomes_unknown = [&run] { return run.kafka.stats().commit_outcomes_unknown; };
    p.kafka_transactions_aborted = [&run] { return run.kafka.stats().transactions_aborted; };
    p.system_failed_calls = [&run](const std::string& system) -> uint64_t {
        if (system == "mysql-source" && run.source_database) return run.source_database->stats().failed_calls;
        if (system == "mysql-target" && run.target_database) return run.target_database->stats().failed_calls;
        if (system == "coordination" && run.coordination) return run.coordination->stats().refused_by_fault;
        const auto* model = run.outside.find<sim::external::OutsideSystem>(system);
        return model == nullptr ? 0 : model->stats().failed_calls;
    };
    return p;
}

std::string announcer_name(const std::string& point) {
    const PointAnnouncer* a = point_announcer(point);
    return a == nullptr ? "no component" : std::string(a->component);
}

std::string run_end_text(const engine::Engine& engine, const std::string& cut) {
    if (engine.finished()) return "the job finished";
    if (engine.failed()) return "the job failed";
    return "the run was " + cut;
}

// The accounts into the result and its figures; strict: a scheduled fault that did not fire with
// an effect fails the run, with the reason.
void account_faults(RunResult& result, std::vector<FaultAccount> accounts, bool strict) {
    const FaultTally t = tally(accounts);
    result.figures.faults_planned = t.planned;
    result.figures.faults_fired = t.fired;
    result.figures.faults_without_effect = t.without_effect;
    result.figures.faults_not_fired = t.not_fired;
    result.fault_accounts = std::move(accounts);
    if (!strict) return;
    const std::string failure = strict_fault_failure(result.fault_accounts, false);
    if (failure.empty()) return;
    result.expectation_met = false;
    result.expectation_message = failure + "; " + result.expectation_message;
}
// --- end fault accounting ---

// Progress for cutting a hung run: when a checkpoint last completed or a transaction committed.
class ProgressWatch final : public engine::RunObserver {
public:
    void checkpoint_completed(sim::Time t, int64_t /*checkpoint_id*/, const engine::SourceOffsets&) override { last_ = t; }
    void transaction_event(sim::Time t, const std::string& /*transactional_id*/, const char* what) override {
        if (std::string_view(what) == "committed") last_ = t;
    }
    sim::Time last() const { return last_; }

private:
    sim::Time last_ = sim::Time::zero();
};

engine::HighAvailability high_availability(const Scenario& s, RunWorld& run) {
    engine::HighAvailability ha;
    if (!s.high_availability) return ha;
    ha.service = run.coordination.get();
    ha.job_managers = s.high_availability->job_managers;
    ha.session_timeout = s.high_availability->session_timeout;
    ha.tolerate_suspended_connections = s.high_availability->tolerate_suspended_connections;
    return ha;
}

// What a read_committed reader of a Kafka sink's topic sees, as a compact sorted multiset: streamed
// from the topic's columns in batches (no unpacked copy of it exists at any time). The same records
// as the sink's for_each_output (plain inserts; the multiset drops timestamps anyway).
oracles::RecordMultiset committed_kafka_content(const engine::KafkaSinkConfig& sink, const engine::OutsideSystems& systems) {
    return oracles::RecordMultiset::from_columns([&](const oracles::RecordMultiset::ColumnVisit& visit) {
        systems.kafka->for_each_committed_batch(sink.options().topic, visit);
    });
}

// What a committed reader of `sink`'s outside system sees, read once after the run (oracles ask
// only then) into a compact sorted multiset that every oracle of the sink shares.
oracles::SinkReader committed_reader(const engine::VertexSpec& sink, const engine::OutsideSystems& systems) {
    auto content = std::make_shared<std::optional<oracles::RecordMultiset>>();
    return [&sink, &systems, content]() -> oracles::RecordMultiset {
        if (!*content) {
            if (const auto* kafka_sink = dynamic_cast<const engine::KafkaSinkConfig*>(sink.sink.get())) {
                *content = committed_kafka_content(*kafka_sink, systems);
            } else {
                *content = oracles::RecordMultiset(sink.sink->read_output(systems));
            }
        }
        return **content;
    };
}

// The sinks the output oracles judge: every sink of every deployment's program, in program order
// (the job's own first). A sink counts once, by uid, as the first program that has it names it; a
// later sink whose id an earlier sink with another uid holds is left out (the reference model keys
// expected outputs by that id: oracles/reference_model.h).
std::vector<const engine::VertexSpec*> output_sinks(const std::vector<engine::JobSpec>& programs) {
    std::vector<const engine::VertexSpec*> sinks;
    std::set<std::string> ids;
    std::set<std::string> uids;
    for (const engine::JobSpec& program : programs) {
        for (const engine::VertexSpec& v : program.vertices) {
            if (v.kind != engine::OperatorKind::sink || ids.contains(v.id)) continue;
            if (!uids.insert(v.uid_or_id()).second) continue;
            ids.insert(v.id);
            sinks.push_back(&v);
        }
    }
    return sinks;
}

// What a committed reader of `sink` sees, read when asked: its read_output (a Kafka sink's is its
// topic's committed records, event timestamps included).
oracles::WindowOutputOracle::TimedReader timed_reader(const engine::VertexSpec* sink, const engine::OutsideSystems& systems) {
    if (sink == nullptr) return {};
    return [sink, &systems] { return sink->sink->read_output(systems); };
}

// The window oracle of the job's window vertex (the loader checked its shape).
std::unique_ptr<oracles::WindowOutputOracle> make_window_oracle(const engine::JobSpec& job, const oracles::ReferenceModel& model,
                                                                const engine::OutsideSystems& systems) {
    const oracles::WindowOutputSinks sinks = oracles::find_window_output_sinks(job).value();
    bool idleness = false;
    for (const engine::VertexSpec& v : job.vertices) idleness = idleness || source_marks_idle_splits(v);
    return std::make_unique<oracles::WindowOutputOracle>(model.window_model(sinks.window->id), sinks.window->id,
                                                         timed_reader(sinks.results, systems), timed_reader(sinks.late, systems),
                                                         idleness);
}

std::string seconds_text(sim::Time t) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3fs", t.seconds());
    return text;
}

}  // namespace

RunResult run_scenario(const Scenario& scenario, const RunOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();  // for the figures only, never for behaviour
    RunWorld run(scenario, options.seed);
    sim::World& world = run.world;
    world.trace().set_log(options.trace_log);

    oracles::ModelInput model_input;
    engine::EngineServices services{engine::OutsideSystems{&run.kafka, &run.store}, {}};
    run.outside.expose(services.systems);
    services.systems.source_database = run.source_database.get();
    services.systems.target_database = run.target_database.get();
    for (const auto& producer : run.inputs) {
        auto& partitions = model_input[producer->spec().topic];
        for (size_t p = 0; p < producer->partitions().size(); ++p) {
            partitions.push_back(producer->partitions()[p]);
            services.input_end_offsets[{producer->spec().topic, static_cast<int32_t>(p)}] =
                static_cast<int64_t>(producer->partitions()[p].size());
        }
    }
    // A CDC job's model input: the workload table's final rows, as the application expects them.
    std::map<std::string, std::vector<engine::Record>> model_tables;
    if (run.workload) {
        auto& rows = model_tables[run.workload->spec().table];
        for (const auto& [key, row] : run.workload->final_rows()) rows.push_back(engine::Record{key, row.value});
    }
    oracles::ReferenceModel model(scenario.job, std::move(model_input), std::move(model_tables));
    const engine::VertexSpec& sink = sink_vertex(scenario.job);
    const oracles::SinkReader reader = committed_reader(sink, services.systems);

    ObserverFanout fanout;
    TimelineRecorder timeline;
    fanout.add(&timeline);
    CheckpointStatsTracker checkpoint_stats;
    fanout.add(&checkpoint_stats);
    if (options.observer != nullptr) fanout.add(options.observer);
    ProgressWatch progress;
    fanout.add(&progress);
    DeploymentRun deployments(scenario, world, services, fanout, high_availability(scenario, run));
    fanout.set_hand_over([&deployments] { return deployments.hands_over(); }, &timeline);
    sim::OutsideFaults hooks{
        [&run](sim::Time until) { run.kafka.set_unavailable_until(until); },
        [&run](sim::Time until) { run.kafka.set_write_failures_until(until); },
        [&run] { run.kafka.abort_open_transactions(); },
        fault_targets(run),
        [&run](sim::Time until) { run.kafka.set_commit_errors_until(until); },
        [&run](sim::Time until) { run.kafka.set_commit_outcome_unknown_until(until); },
    };
    // The plan: the scenario's explicit faults, then those drawn for this seed (from the stream
    // "faults", so drawing them shifts no other component's randomness).
    std::vector<sim::FaultSpec> plan = scenario.faults;
    std::optional<FaultDraw> draw;
    if (scenario.random_faults) {
        sim::Prng prng = world.prng("faults");
        draw = draw_random_faults(*scenario.random_faults, prng);
        plan.insert(plan.end(), draw->faults.begin(), draw->faults.end());
    }
    // Coverage listens to points before the injector does, so a fault placed at a point sees it.
    CoverageTracker coverage;
    world.on_point([&coverage, &world](const sim::ProtocolPointEvent& event) {
        coverage.point(world.now(), event.point, world.nodes().name(event.node), event.detail);
    });
    sim::FaultInjector injector(world, std::move(plan), hooks);
    injector.on_fired([&coverage, &injector](const sim::FiredFault& fired) {
        coverage.fault(fired, injector.plan()[fired.plan_index]);
    });
    // --- fault accounting (scenarios/fault_accounting.h): watches the run, never changes it ---
    FaultAccounting accounting(world, injector, scenario.faults.size(), effect_probes(run, deployments), announcer_name);
    injector.set_attempt([&deployments] { return deployments.current().stats().failovers + 1; });  // at_point.attempt
    // --- end fault accounting ---

    // The output oracles judge every sink of every deployment's program, each through one reader
    // (the job's first sink's is `reader`, which the figures use too).
    std::vector<std::pair<const engine::VertexSpec*, oracles::SinkReader>> judged_sinks;
    std::vector<std::string> judged_ids;
    for (const engine::VertexSpec* judged : output_sinks(deployments.jobs())) {
        judged_sinks.emplace_back(judged, judged->id == sink.id ? reader : committed_reader(*judged, services.systems));
        judged_ids.push_back(judged->id);
    }
    model.expect_sinks(judged_ids);  // a later program's sink: nothing expected until the run deploys it
    std::vector<std::unique_ptr<oracles::Oracle>> checks;
    std::vector<OracleKind> kinds;
    std::vector<oracles::ExactlyOnceOutputOracle*> exactly_once;  // one per judged sink
    oracles::VisibilityOracle* visibility = nullptr;
    oracles::NoKeyBackwardsOracle* table_reader = nullptr;
    oracles::FreshnessOracle* freshness = nullptr;
    oracles::StateAfterRestoreOracle* state_oracle = nullptr;
    oracles::StorageOracle* storage_checker = nullptr;
    oracles::VerificationOutputOracle* verification = nullptr;
    oracles::WindowOutputOracle* window_oracle = nullptr;
    for (OracleKind kind : scenario.oracles) {
        std::unique_ptr<oracles::Oracle> oracle;
        switch (kind) {
            case OracleKind::exactly_once_output: {
                auto every = std::make_unique<oracles::EverySinkOracle>("exactly_once_output");
                for (const auto& [judged, judged_reader] : judged_sinks) {
                    auto e = std::make_unique<oracles::ExactlyOnceOutputOracle>(model, judged->id, judged->sink->output_shape(),
                                                                                judged_reader);
                    exactly_once.push_back(e.get());
                    every->add(std::move(e));
                }
                oracle = std::move(every);
                break;
            }
            case OracleKind::at_least_once_output: {
                auto every = std::make_unique<oracles::EverySinkOracle>("at_least_once_output");
                for (const auto& [judged, judged_reader] : judged_sinks) {
                    every->add(std::make_unique<oracles::AtLeastOnceOutputOracle>(model, judged->id, judged_reader));
                }
                oracle = std::move(every);
                break;
            }
            case OracleKind::state_after_restore: {
                auto o = std::make_unique<oracles::StateAfterRestoreOracle>(model, scenario.job);
                state_oracle = o.get();
                oracle = std::move(o);
                break;
            }
            case OracleKind::visibility: {
                const std::string topic = sink.sink->kafka_topic();
                auto v = std::make_unique<oracles::VisibilityOracle>(world.scheduler(), run.kafka,
                                                                    topic.empty() ? scenario.inputs.front().topic : topic);
                visibility = v.get();
                oracle = std::move(v);
                break;
            }
            case OracleKind::no_key_backwards: {
                auto o = std::make_unique<oracles::NoKeyBackwardsOracle>(world.scheduler(), *run.target_database, engine::upsert_sink_options(sink)->table);
                table_reader = o.get();
                oracle = std::move(o);
                break;
            }
            case OracleKind::mirror: {
                const engine::VertexSpec* source = nullptr;
                for (const engine::VertexSpec& v : scenario.job.vertices) {
                    if (v.kind == engine::OperatorKind::cdc_source) source = &v;
                }
                oracle = std::make_unique<oracles::MirrorOracle>(*run.source_database, source->table,
                                                                 *run.target_database, engine::upsert_sink_options(sink)->table);
                break;
            }
            case OracleKind::freshness: {
                auto f = std::make_unique<oracles::FreshnessOracle>(
                    run.kafka, sink.sink->kafka_topic(), scenario.freshness_bound_or_default(),
                    [&injector](sim::Time from, sim::Time to) { return fault_effect_during(injector, from, to); },
                    [&world] { return world.now(); });
                freshness = f.get();
                oracle = std::move(f);
                break;
            }
            case OracleKind::liveness:
                oracle = std::make_unique<oracles::LivenessOracle>(scenario.liveness_bound,
                                                                   [&injector] { return injector.quiet_since(); });
                break;
            case OracleKind::verification_output: {
                auto o = std::make_unique<oracles::VerificationOutputOracle>(model);
                verification = o.get();
                oracle = std::move(o);
                break;
            }
            case OracleKind::storage: {
                auto s = std::make_unique<oracles::StorageOracle>(world.scheduler(), world.storage(), scenario.job);
                storage_checker = s.get();
                oracle = std::move(s);
                break;
            }
            case OracleKind::window_output: {
                auto w = make_window_oracle(scenario.job, model, services.systems);
                window_oracle = w.get();
                oracle = std::move(w);
                break;
            }
        }
        fanout.add(oracle.get());
        checks.push_back(std::move(oracle));
        kinds.push_back(kind);
    }

    if (freshness != nullptr) {
        world.on_point([freshness, &world](const sim::ProtocolPointEvent& event) {
            if (event.point == engine::points::kSinkPrecommitted) freshness->precommitted(world.now(), static_cast<int64_t>(event.detail));
        });
    }
    for (const auto& producer : run.inputs) producer->start();
    if (run.workload) run.workload->start();
    if (visibility != nullptr) visibility->start();
    if (table_reader != nullptr) table_reader->start();
    if (storage_checker != nullptr) storage_checker->start();
    deployments.schedule_user_requests();
    deployments.live().start();
    const uint64_t max_events = options.max_events;
    // A hung run ends early, as a liveness failure, once every fault has fired, their effects are
    // over and the liveness bound has passed since then and since the last progress: the liveness
    // oracle fails it then as it would at the time_limit, without simulating (and recording) the rest.
    const bool judges_liveness =
        std::find(scenario.oracles.begin(), scenario.oracles.end(), OracleKind::liveness) != scenario.oracles.end();
    bool hung = false;
    auto is_hung = [&] {
        if (!judges_liveness || injector.pending_count() != 0) return false;
        return world.now() > std::max(injector.quiet_since(), progress.last()) + scenario.liveness_bound;
    };
    for (;;) {
        // Asked before every event: the engine is looked up once here (the current deployment only
        // changes at a hand-over, between two run_until calls).
        const engine::Engine& running = deployments.current();
        world.scheduler().run_until(sim::Time::zero() + scenario.time_limit, [&] {
            accounting.tick();  // fault accounting: the counters of faults whose effect just ended
            if (running.finished() || running.failed()) return true;
            if (max_events != 0 && world.scheduler().processed() >= max_events) return true;
            hung = is_hung();
            return hung;
        });
        if (!deployments.current().finished() || !deployments.hands_over()) break;
        const size_t next_deployment = deployments.live_index() + 1;
        deployments.hand_over(
            [&](const engine::JobSpec& next, const engine::SourceOffsets& from, bool first) {
                // A deployment with a program of its own: the model runs it from the savepoint's offsets on.
                if (first && scenario.deployments[next_deployment - 1].job_vertices) model.add_deployment(next, from);
                if (state_oracle != nullptr) state_oracle->set_job(next);
            },
            [&](const DeploymentRun::Verified& ran) {
                if (verification == nullptr) return;
                for (const engine::VertexSpec& v : ran.job->vertices) {
                    const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get());
                    if (kafka == nullptr) continue;  // every Kafka sink of the job: each writes a throw-away topic
                    verification->verification_ran(*ran.job, ran.from, ran.to, v.uid_or_id(), [&services, kafka] {
                        return committed_kafka_content(*kafka, services.systems);
                    });
                }
            });
    }
    engine::Engine& engine = deployments.current();
    std::string cut;
    if (!engine.finished() && !engine.failed()) {
        if (hung) {
            cut = "cut early at " + seconds_text(world.now()) + " as a liveness failure: faults quiet since " +
                  seconds_text(injector.quiet_since()) + ", no checkpoint completed and no transaction committed since " +
                  seconds_text(progress.last()) + ", past the liveness bound (" + seconds_text(sim::Time::zero() + scenario.liveness_bound) +
                  "); the rest up to the time_limit was not simulated";
        } else if (max_events != 0 && world.scheduler().processed() >= max_events) {
            cut = "cut at the event limit (" + std::to_string(max_events) +
                  " events) before the job finished or failed: a livelock or a hang?";
        } else {
            cut = "cut at the time_limit (" + seconds_text(sim::Time::zero() + scenario.time_limit) + ") before the job finished";
        }
        for (oracles::ExactlyOnceOutputOracle* e : exactly_once) e->set_run_cut(cut);
        if (window_oracle != nullptr) window_oracle->set_run_cut(cut);
    }

    RunResult result;
    result.scenario = scenario.name;
    result.seed = options.seed;
    result.trace_hash = world.trace().hash();
    result.job_finished = engine.finished();
    result.cut = cut;
    for (size_t i = 0; i < checks.size(); ++i) {
        const oracles::Verdict v = checks[i]->verdict();
        result.verdicts.push_back(OracleVerdict{kinds[i], v.passed, v.message});
    }
    RunFigures& f = result.figures;
    f.events = world.trace().events();
    f.virtual_seconds = world.now().seconds();
    f.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const engine::EngineStats stats = deployments.total_stats();
    f.checkpoints_completed = stats.checkpoints_completed;
    f.checkpoints_aborted = stats.checkpoints_aborted;
    for (const auto& [reason, count] : stats.checkpoints_aborted_by_reason) {
        f.checkpoints_aborted_by_reason[engine::to_string(reason)] = count;
    }
    f.checkpoint_files_discarded = stats.checkpoint_files_discarded;
    f.checkpoint_bytes_discarded = stats.checkpoint_bytes_discarded;
    const sim::DurableStorage& storage = world.storage();
    for (const engine::JobSpec* deployed : deployments.all_jobs()) {
        const engine::CheckpointStorageUse use = engine::checkpoint_storage_use(
            *deployed, storage.contents(), [&storage](const std::string& key) { return storage.removal_in_flight(key); });
        f.checkpoint_files_retained += use.retained.files;
        f.checkpoint_bytes_retained += use.retained.bytes;
        f.checkpoint_files_unretained += use.unretained.files;
        f.checkpoint_bytes_unretained += use.unretained.bytes;
    }
    f.savepoints_completed = stats.savepoints_completed;
    for (const engine::JobSpec* deployed : deployments.all_jobs()) {
        const engine::SavepointFiles kept = engine::savepoint_files(*deployed, storage.contents());
        f.savepoints_stored += kept.savepoints;
        f.savepoint_files += kept.files;
        f.savepoint_files_missing += kept.missing;
    }
    f.shared_bytes_uploaded = stats.shared_bytes_uploaded;
    f.shared_bytes_referenced = stats.shared_bytes_referenced;
    f.restarts = stats.restarts;
    f.failovers = stats.failovers;
    f.transactions_committed = static_cast<int64_t>(run.kafka.stats().transactions_committed);
    f.transactions_aborted = static_cast<int64_t>(run.kafka.stats().transactions_aborted);
    f.fenced_calls = static_cast<int64_t>(run.kafka.stats().fenced_calls);
    f.commit_errors = static_cast<int64_t>(run.kafka.stats().commit_errors);
    f.commit_outcomes_unknown = static_cast<int64_t>(run.kafka.stats().commit_outcomes_unknown);
    f.fenced_writes = static_cast<int64_t>(run.kafka.stats().fenced_writes);
    f.faults_injected = static_cast<int64_t>(injector.injected_count());
    f.leaderships = engine.stats().leaderships;
    f.checkpoints_stored = engine.stats().checkpoints_stored;
    f.store_refusals = engine.stats().checkpoint_store_refusals;
    f.fenced_messages = engine.stats().fenced_messages;
    f.deployments_refused = engine.stats().deployments_refused;
    if (run.coordination) f.sessions_expired = static_cast<int64_t>(run.coordination->stats().sessions_expired);
    const sim::external::OutsideSystemStats outside = run.outside.total_stats();
    f.outside_calls = static_cast<int64_t>(outside.calls);
    f.outside_calls_failed = static_cast<int64_t>(outside.failed_calls);
    f.absorbed_duplicates = static_cast<int64_t>(outside.absorbed_duplicates);
    f.records_in = model.input_records();
    f.records_out = static_cast<int64_t>(reader().size());
    result.checkpoints = checkpoint_stats.checkpoints();
    const CheckpointStatsSummary summary = summarize(result.checkpoints);
    f.checkpoints_unaligned = summary.unaligned;
    f.checkpoint_duration_median_ms = summary.duration_median_ms;
    f.checkpoint_duration_p99_ms = summary.duration_p99_ms;
    f.checkpoint_duration_max_ms = summary.duration_max_ms;
    f.alignment_median_ms = summary.alignment_median_ms;
    f.alignment_max_ms = summary.alignment_max_ms;
    f.checkpoint_bytes_median = summary.bytes_median;
    f.channel_state_bytes_median = summary.channel_bytes_median;
    // The databases are not (yet) registered outside systems: their commits and failed calls, and the
    // upsert statements that changed nothing, are added here.
    for (const sim::external::Database* db : {run.source_database.get(), run.target_database.get()}) {
        if (db == nullptr) continue;
        f.outside_calls += static_cast<int64_t>(db->stats().commits + db->stats().failed_calls);
        f.outside_calls_failed += static_cast<int64_t>(db->stats().failed_calls);
        f.absorbed_duplicates += static_cast<int64_t>(db->stats().unchanged_writes);
    }
    result.faults = injector.fired();
    for (const sim::FiredFault& fault : result.faults) {
        timeline.add(TimelineEvent{fault.at.ns, -1, "faults", std::string("fault.") + sim::to_string(fault.kind), fault.action});
    }
    result.timeline = timeline.take();
    f.transactions_lost = std::count_if(result.timeline.begin(), result.timeline.end(),
                                        [](const TimelineEvent& e) { return e.what == "txn.lost"; });
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) coverage.oracle_fired(to_string(v.oracle));
    }
    coverage.fenced_writes(run.kafka.stats().fenced_writes);
    coverage.finish(world.now());
    result.coverage = coverage.hits();
    result.fault_draw = std::move(draw);

    // The expectation: every oracle passes, or exactly the named oracle fires (and no other).
    std::vector<std::string> fired;
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) fired.push_back(to_string(v.oracle));
    }
    std::string fired_list;
    for (const std::string& name : fired) fired_list += (fired_list.empty() ? "" : ", ") + name;
    if (!scenario.expect.job_failure.empty()) {
        const bool failed_so = engine.failed() && engine.failure().find(scenario.expect.job_failure) != std::string::npos;
        result.expectation_met = failed_so && fired.empty();
        result.expectation_message =
            !engine.failed() ? "expected the job to fail with \"" + scenario.expect.job_failure + "\"; it did not fail"
            : !failed_so     ? "expected the job to fail with \"" + scenario.expect.job_failure + "\"; it failed with: " + engine.failure()
            : fired.empty()  ? "expected the job to fail with \"" + scenario.expect.job_failure + "\": it did (" + engine.failure() +
                                  "), and every oracle passed"
                             : "the job failed as expected, but oracles were violated: " + fired_list;
    } else if (scenario.expect.pass) {
        result.expectation_met = fired.empty();
        result.expectation_message = fired.empty() ? "expected every oracle to pass: they did"
                                                   : "expected every oracle to pass; violated: " + fired_list;
    } else {
        const std::string wanted = to_string(scenario.expect.violation);
        result.expectation_met = fired.size() == 1 && fired.front() == wanted;
        result.expectation_message = result.expectation_met
                                         ? "expected a violation of " + wanted + ": found it, and only it"
                                         : "expected a violation of " + wanted + " only; violated: " +
                                               (fired.empty() ? std::string("none") : fired_list);
        if (!scenario.expect.every_seed && fired.empty()) {
            // A negative control under random faults: this seed did not reach the bug, which is
            // allowed; a suite still requires "oracle:<violation>" on some seed.
            result.expectation_met = true;
            result.expectation_message = "expected a violation of " + wanted +
                                         " on some seeds (not every seed): none on this one, which is allowed";
        }
    }
    if (!cut.empty()) result.expectation_message = "the run was " + cut + "; " + result.expectation_message;
    // --- fault accounting (scenarios/fault_accounting.h) ---
    account_faults(result, accounting.finish(run_end_text(engine, cut)), scenario.strict_faults || options.strict_faults);
    // --- end fault accounting ---
    return result;
}

std::string reproduce_command(const Scenario& scenario, uint64_t seed) {
    return "eosim run " + scenario.source.string() + " --seed " + std::to_string(seed);
}

}  // namespace eosim::scenarios
