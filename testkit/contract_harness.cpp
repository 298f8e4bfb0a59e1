#include "testkit/contract_harness.h"
#include "testkit/contract_instances.h"

#include <algorithm>
#include <string_view>

namespace eosim::testkit {

const char* to_string(Delivery delivery) {
    switch (delivery) {
        case Delivery::now: return "delivered";
        case Delivery::lost: return "LOST";
        case Delivery::late: return "held back (delivered late)";
    }
    return "?";
}

const std::vector<std::string>& contract_systems() {
    static const std::vector<std::string> names = {"kafka",     "append_store", "objects",
                                                   "documents", "key_values",   "database"};
    return names;
}

std::string ContractHarness::Subtask::name() const {
    const auto state = incarnation->state;
    return incarnation->name() +
           (state == Incarnation::State::zombie   ? " (ZOMBIE)"
            : state == Incarnation::State::closed ? " (CLOSED)"
                                                  : "") +
           ", subtask " + std::to_string(index);
}

bool ContractHarness::Checkpoint::complete_set() const {
    return std::all_of(pre_committed.begin(), pre_committed.end(), [](bool done) { return done; });
}

ContractHarness::ContractHarness(std::shared_ptr<const engine::SinkConfig> config,
                                 const ContractOptions& options, ContractChecks checks,
                                 uint64_t seed, FaultPaths* paths)
    : config_(std::move(config)),
      options_(options),
      checks_(checks),
      paths_(paths),
      world_(sim::WorldOptions{seed, {}, {}}),
      kafka_node_(world_.nodes().add("kafka")),
      store_node_(world_.nodes().add("append-store")),
      objects_node_(world_.nodes().add("objects")),
      documents_node_(world_.nodes().add("documents")),
      key_values_node_(world_.nodes().add("key_values")),
      database_node_(world_.nodes().add("database")),
      // A transaction timeout far beyond any run: the broker aborting a pre-committed transaction
      // loses data whatever the sink does (the job-level check covers timeouts).
      kafka_(world_.scheduler(), world_.network(), kafka_node_,
             sim::external::KafkaOptions{sim::Duration::seconds(24 * 3600), true, false}),
      store_(world_.scheduler(), world_.network(), store_node_),
      objects_(world_.scheduler(), world_.network(), objects_node_),
      documents_(world_.scheduler(), world_.network(), documents_node_, world_.prng("documents")),
      key_values_(world_.scheduler(), world_.network(), key_values_node_),
      database_(world_.scheduler(), world_.network(), database_node_) {
    kafka_.create_topic("output", options_.kafka_partitions);
    systems_.kafka = &kafka_;
    systems_.append_store = &store_;
    systems_.objects = &objects_;
    systems_.documents = &documents_;
    systems_.key_values = &key_values_;
    systems_.databases.emplace_back(std::string(engine::kSinkDatabase), &database_);
    for (const std::string& system : contract_systems()) {
        sim::external::CallRaces* races = races_of(system);
        if (races == nullptr) continue;
        races->set_log([this, system](const sim::external::CallNote& note) {
            calls_.push_back("       " + caller_name(note.caller) + " -> " + system + ": " +
                             note.call + "  => " + note.answer);
        });
    }
    world_.on_point([this](const sim::ProtocolPointEvent& event) {
        Subtask* subtask = by_node(event.node);
        if (subtask == nullptr) return;
        if (paths_ != nullptr) ++paths_->announced[std::string(event.point)];
        if (!armed_point_ || *armed_point_ != event.point || subtask->incarnation != live()) return;
        armed_point_.reset();
        if (paths_ != nullptr) ++paths_->effects["crash_at_point fired"];
        // Listed with the calls of the step that announced the point, in order (not as a step of
        // its own).
        calls_.push_back(
            "       " + subtask->name() + " CRASHES at its announcement of " +
            std::string(event.point) + " (detail " + std::to_string(event.detail) + ")" +
            (subtask->incarnation->parallelism() > 1 ? "; its TaskManager runs every subtask"
                                                     : ""));
        crash_incarnation(*subtask->incarnation, "crashed at " + std::string(event.point));
    });
    last_calls_ = call_counts();
}

ContractHarness::~ContractHarness() {
    if (paths_ == nullptr) return;
    // What the faults did: calls the outside systems answered with an injected error.
    const auto& k = kafka_.stats();
    if (k.commit_errors != 0)
        paths_->effects["kafka: commits/aborts answered with a retriable error"] +=
            static_cast<int64_t>(k.commit_errors);
    if (k.commit_outcomes_unknown != 0) {
        paths_->effects["kafka: commits/aborts applied, answer lost"] +=
            static_cast<int64_t>(k.commit_outcomes_unknown);
    }
    if (k.fenced_calls != 0)
        paths_->effects["kafka: calls fenced (a zombie's)"] += static_cast<int64_t>(k.fenced_calls);
    for (const auto& [name, c] : call_counts()) {
        if (name != "kafka" && c.failed != 0)
            paths_->effects[name + ": calls failed"] += static_cast<int64_t>(c.failed);
    }
    for (const std::string& system : contract_systems()) {
        const sim::external::CallRaces* races = races_of(system);
        if (races == nullptr) continue;
        const auto& r = races->stats();
        if (r.answers_lost != 0)
            paths_->effects[system + ": writes applied, answer lost"] +=
                static_cast<int64_t>(r.answers_lost);
        if (r.landed_late != 0)
            paths_->effects[system + ": writes landed late"] += static_cast<int64_t>(r.landed_late);
        if (r.requests_lost != 0)
            paths_->effects[system + ": write requests lost"] +=
                static_cast<int64_t>(r.requests_lost);
    }
    const auto [uploads, transactions] = leaks();
    if (uploads != 0)
        paths_->effects["left open at the end: multipart uploads"] += static_cast<int64_t>(uploads);
    if (transactions != 0)
        paths_->effects["left open at the end: Kafka transactions"] +=
            static_cast<int64_t>(transactions);
}

ContractHarness::Incarnation* ContractHarness::live() {
    if (incarnations_.empty() || incarnations_.back()->state != Incarnation::State::live)
        return nullptr;
    return incarnations_.back().get();
}

ContractHarness::Incarnation* ContractHarness::latest_zombie() {
    for (auto it = incarnations_.rbegin(); it != incarnations_.rend(); ++it) {
        if ((*it)->state == Incarnation::State::zombie) return it->get();
    }
    return nullptr;
}

ContractHarness::Subtask* ContractHarness::by_node(sim::NodeId node) {
    for (const auto& incarnation : incarnations_) {
        for (const auto& subtask : incarnation->subtasks) {
            if (subtask->node == node) return subtask.get();
        }
    }
    return nullptr;
}

void ContractHarness::line(const std::string& text, bool made_the_calls) {
    if (!made_the_calls) log_calls();  // the calls since the last line were that line's
    log_ += "  " + std::to_string(++step_) + ". " + text + "\n";
    if (made_the_calls)
        log_calls();  // this step's calls were made before its line could be written
}

std::map<std::string, ContractHarness::CallCounts> ContractHarness::call_counts() const {
    std::map<std::string, CallCounts> out;
    for (const auto& [name, system] :
         {std::pair<const char*, const sim::external::OutsideSystem*>{"objects", &objects_},
          {"documents", &documents_},
          {"key_values", &key_values_}}) {
        const auto& st = system->stats();
        out[name] =
            CallCounts{st.calls, st.failed_calls, st.writes_applied, st.absorbed_duplicates};
    }
    const auto& db = database_.stats();
    out["database"] = CallCounts{db.commits + db.rollbacks + db.failed_calls, db.failed_calls,
                                 db.statements_committed, db.unchanged_writes};
    // Kafka: records written to the topic's log (plain or in a transaction), transactions
    // committed, and calls answered with an error or fenced.
    const auto& k = kafka_.stats();
    uint64_t logged = 0;
    for (int32_t p = 0; p < options_.kafka_partitions; ++p) {
        logged += static_cast<uint64_t>(
            kafka_.end_offset("output", p, sim::external::Isolation::read_uncommitted));
    }
    out["kafka"] = CallCounts{logged, k.fenced_calls + k.commit_errors + k.commit_outcomes_unknown,
                              k.transactions_committed, k.duplicate_batches};
    return out;
}

// The outside-system calls since the last line: each call of the other systems with its arguments
// and answer, in order; Kafka's counted (records written to the log, transactions committed).
void ContractHarness::log_calls() {
    if (step_ == 0) {
        calls_.clear();  // the harness's own set-up
        return;
    }
    for (const std::string& call : calls_) log_ += call + "\n";
    calls_.clear();
    const CallCounts now = call_counts().at("kafka");
    const CallCounts& before = last_calls_["kafka"];
    if (now.calls != before.calls || now.applied != before.applied || now.failed != before.failed) {
        std::string text = "       kafka: " + std::to_string(now.calls - before.calls) +
                           " record(s) written to the log, " +
                           std::to_string(now.applied - before.applied) +
                           " transaction(s) committed";
        if (now.failed != before.failed)
            text += ", " + std::to_string(now.failed - before.failed) + " call(s) failed or fenced";
        log_ += text + "\n";
    }
    last_calls_["kafka"] = now;
}

std::string ContractHarness::caller_name(sim::NodeId node) {
    const Subtask* subtask = by_node(node);
    if (subtask == nullptr) return "node " + std::to_string(node);
    return subtask->name();
}

std::string ContractHarness::describe(const engine::Record& record) const {
    return "k" + std::to_string(record.key) + "=#" + std::to_string(record.value);
}

std::string ContractHarness::describe_output(const std::vector<engine::Record>& output) const {
    std::vector<engine::Record> sorted = output;
    std::sort(sorted.begin(), sorted.end(), [](const engine::Record& a, const engine::Record& b) {
        return a.value != b.value ? a.value < b.value : a.key < b.key;
    });
    std::string out = "{";
    const size_t shown = std::min<size_t>(sorted.size(), 40);
    for (size_t i = 0; i < shown; ++i) {
        if (i > 0) out += ' ';
        out += describe(sorted[i]);
    }
    if (shown < sorted.size()) out += " ... (" + std::to_string(sorted.size()) + " in all)";
    return out + "}";
}

int64_t ContractHarness::completed_position() const {
    if (last_completed_ == 0) return 0;
    return checkpoints_.at(last_completed_).position;
}

void ContractHarness::start(int32_t parallelism) {
    restore("at the start", std::max(1, parallelism));
}

void ContractHarness::emit(Subtask& subtask, int64_t count, const std::vector<int32_t>* fresh_keys,
                           int64_t barrier) {
    const int32_t parallelism = subtask.incarnation->parallelism();
    const auto routed_here = [&](int64_t key) { return key % parallelism == subtask.index; };
    engine::RecordBatch batch;
    int64_t replayed = 0;
    int64_t fresh = 0;
    while (static_cast<int64_t>(batch.size()) < count && subtask.position < barrier) {
        const int64_t position = subtask.position++;
        if (position < static_cast<int64_t>(sequence_.size())) {
            if (!routed_here(sequence_[static_cast<size_t>(position)].key))
                continue;  // another subtask's
            ++replayed;
        } else {
            // A new record of S, keyed for this subtask.
            const int32_t drawn =
                fresh_keys != nullptr && !fresh_keys->empty()
                    ? (*fresh_keys)[static_cast<size_t>(fresh++) % fresh_keys->size()]
                    : static_cast<int32_t>((position + 1) % std::max(1, options_.keys));
            sequence_.push_back(
                engine::Record{drawn - drawn % parallelism + subtask.index, position + 1});
        }
        batch.push_back(sequence_[static_cast<size_t>(position)]);
    }
    if (batch.empty()) return;
    std::string text;
    for (const engine::Record& r : batch) {
        text += ' ';
        text += describe(r);
    }
    line(subtask.name() + " writes" + text +
         (replayed > 0 ? " (" + std::to_string(replayed) + " replayed)" : "") +
         (static_cast<int64_t>(batch.size()) < count && count != kEverything
              ? " (the rest waits behind the barrier)"
              : ""));
    subtask.sink->write(batch);
}

void ContractHarness::write(int32_t pick, const std::vector<int32_t>& fresh_keys) {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    Subtask& subtask =
        *incarnation->subtasks[static_cast<size_t>(pick % incarnation->parallelism())];
    const bool behind_barrier =
        in_flight_ && !in_flight_->pre_committed[static_cast<size_t>(subtask.index)];
    emit(subtask, static_cast<int64_t>(fresh_keys.size()), &fresh_keys,
         behind_barrier ? in_flight_->position : kEverything);
    fail_over_if_failed();
}

ContractHarness::Checkpoint ContractHarness::trigger(Incarnation& incarnation) {
    Checkpoint taken;
    taken.id = next_checkpoint_id_++;
    taken.position = incarnation.furthest();
    taken.states.assign(static_cast<size_t>(incarnation.parallelism()), std::string());
    taken.pre_committed.assign(static_cast<size_t>(incarnation.parallelism()), false);
    taken.incarnation = incarnation.number;
    return taken;
}

bool ContractHarness::ask_pre_commit(Subtask& subtask, Checkpoint& taken,
                                     const std::vector<int32_t>& call_picks) {
    emit(subtask, kEverything, nullptr, taken.position);  // the records before the barrier
    Incarnation& incarnation = *subtask.incarnation;
    if (incarnation.state != Incarnation::State::live) return false;
    if (!wait_for_flush(subtask, taken.id, call_picks)) return false;
    const auto index = static_cast<size_t>(subtask.index);
    std::string error;
    log_calls();
    const bool ok = subtask.sink->pre_commit(taken.id, &taken.states[index], &error);
    if (!ok && incarnation.state == Incarnation::State::live) {
        incarnation.state = Incarnation::State::failed;
        incarnation.failure =
            "subtask " + std::to_string(subtask.index) + ": pre-commit refused: " + error;
    }
    taken.pre_committed[index] = ok && incarnation.state == Incarnation::State::live;
    return taken.pre_committed[index];
}

void ContractHarness::pre_commit(int32_t pick, const std::vector<int32_t>& call_picks) {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    if (!in_flight_) in_flight_ = trigger(*incarnation);
    Checkpoint& taken = *in_flight_;
    std::vector<int32_t> waiting;  // the subtasks the barrier has not passed yet
    for (int32_t i = 0; i < incarnation->parallelism(); ++i) {
        if (!taken.pre_committed[static_cast<size_t>(i)]) waiting.push_back(i);
    }
    Subtask& subtask =
        *incarnation
             ->subtasks[static_cast<size_t>(waiting[static_cast<size_t>(pick) % waiting.size()])];
    const std::string checkpoint = "checkpoint " + std::to_string(taken.id);
    if (!ask_pre_commit(subtask, taken, call_picks)) {
        line(checkpoint + ": " + subtask.name() + " cannot pre-commit (" + incarnation->failure +
                 "); the checkpoint is aborted",
             true);
        in_flight_.reset();
        fail_over_if_failed();
        return;
    }
    const bool every = taken.complete_set();
    const int64_t still = subtask.context->calls_in_flight();
    if (still > 0 && paths_ != nullptr)
        ++paths_->effects["pre-commits with calls of their own still in flight"];
    line(checkpoint + ": " + subtask.name() + " pre-commits" +
             (still == 0
                  ? std::string()
                  : " with " + std::to_string(still) + " call(s) of its own STILL IN FLIGHT") +
             (every ? std::string(incarnation->parallelism() > 1 ? ", the last subtask to" : "") +
                          " (covers #1..#" + std::to_string(taken.position) + ")"
                    : std::string(" (waiting for ") + std::to_string(waiting.size() - 1) +
                          " more subtask(s))"),
         true);
    if (every) {
        checkpoints_[taken.id] = std::move(taken);
        in_flight_.reset();
    }
    fail_over_if_failed();
}

void ContractHarness::notify(Incarnation& incarnation, int64_t id) {
    for (const auto& subtask : incarnation.subtasks) {
        if (incarnation.state != Incarnation::State::live &&
            incarnation.state != Incarnation::State::zombie)
            return;
        subtask->sink->checkpoint_complete(id);
    }
}

void ContractHarness::complete(int32_t pick, Delivery delivery) {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    std::vector<int64_t> candidates;
    for (const auto& [id, checkpoint] : checkpoints_) {
        if (id > last_completed_ && checkpoint.incarnation == incarnation->number)
            candidates.push_back(id);
    }
    if (candidates.empty()) return;  // nothing pre-committed to complete: the command does nothing
    const int64_t id =
        candidates[candidates.size() - 1 - static_cast<size_t>(pick) % candidates.size()];
    std::string subsumed;
    for (int64_t c : candidates) {
        if (c < id)
            subsumed += (subsumed.empty() ? " (subsumes aborted " : ", ") + std::to_string(c);
    }
    if (!subsumed.empty()) subsumed += ")";
    last_completed_ = id;
    line("checkpoint " + std::to_string(id) + " completes" + subsumed + "; notification " +
         to_string(delivery) + (incarnation->parallelism() > 1 ? " to every subtask" : ""));
    if (delivery == Delivery::now) notify(*incarnation, id);
    if (delivery == Delivery::late) {
        for (const auto& subtask : incarnation->subtasks)
            held_notifications_.push_back(Notification{incarnation->number, subtask->index, id});
    }
    fail_over_if_failed();
}

void ContractHarness::deliver_late(int32_t pick) {
    if (held_notifications_.empty()) return;
    const size_t index = static_cast<size_t>(pick) % held_notifications_.size();
    const Notification held = held_notifications_[index];
    held_notifications_.erase(held_notifications_.begin() + static_cast<std::ptrdiff_t>(index));
    Incarnation& incarnation = *incarnations_[static_cast<size_t>(held.incarnation - 1)];
    Subtask& subtask = *incarnation.subtasks[static_cast<size_t>(held.subtask)];
    const bool reachable = incarnation.state == Incarnation::State::live ||
                           incarnation.state == Incarnation::State::zombie;
    line("late notification of checkpoint " + std::to_string(held.checkpoint) + " to " +
         subtask.name() + (reachable ? std::string() : std::string(" (gone: dropped)")));
    if (reachable) subtask.sink->checkpoint_complete(held.checkpoint);
    fail_over_if_failed();
}

void ContractHarness::crash_incarnation(Incarnation& incarnation, const std::string& why) {
    incarnation.state = Incarnation::State::crashed;
    incarnation.failure = why;
    for (const auto& subtask : incarnation.subtasks) world_.scheduler().crash(subtask->node);
    // Its calls in flight die with it: requests not landed never land, answers never come.
    const size_t dropped = std::erase_if(
        calls_in_flight_, [&](const InFlight& f) { return f.caller->incarnation == &incarnation; });
    if (dropped > 0)
        calls_.push_back("       " + std::to_string(dropped) + " call(s) in flight of " +
                         incarnation.name() + " die with it");
    if (dropped > 0 && paths_ != nullptr)
        paths_->effects["asynchronous calls in flight dropped by a crash"] +=
            static_cast<int64_t>(dropped);
}

void ContractHarness::crash(int32_t parallelism) {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    line(incarnation->name() + " CRASHES" +
         (incarnation->parallelism() > 1 ? " (every subtask: their TaskManager dies)" : ""));
    crash_incarnation(*incarnation, "crashed");
    restore("after the crash", failover_parallelism(parallelism));
}

void ContractHarness::crash_at_point(const std::string& point, int32_t parallelism) {
    if (live() == nullptr) return;
    armed_point_ = point;
    armed_parallelism_ = parallelism;
    line("a crash is armed at the sink's next announcement of " + point);
}

void ContractHarness::close_incarnation(Incarnation& incarnation) {
    for (const auto& subtask : incarnation.subtasks) {
        if (subtask->sink) subtask->sink->close();
    }
    incarnation.state = Incarnation::State::closed;
}

void ContractHarness::cancel(int32_t parallelism) {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    if (options_.zombies) {
        // Its TaskManager lost the JobManager: the job fails over without it, and it runs on until
        // it learns of the cancel (close_zombie). No new barrier reaches it: only one already in
        // flight.
        incarnation->state = Incarnation::State::zombie;
        incarnation->zombie_barrier = in_flight_ ? in_flight_->id : next_checkpoint_id_++;
        incarnation->barrier_taken =
            in_flight_ ? in_flight_->pre_committed
                       : std::vector<bool>(static_cast<size_t>(incarnation->parallelism()), false);
        line(
            incarnation->name() +
            " is CANCELLED but not reached (its TaskManager lost the JobManager): a ZOMBIE until it is closed");
    } else {
        log_calls();  // the previous step's; close()'s calls are this step's
        close_incarnation(*incarnation);
        line(incarnation->name() + " is CANCELLED (close()" +
                 (incarnation->parallelism() > 1 ? " on every subtask" : "") + ")",
             true);
    }
    restore("after the cancel", failover_parallelism(parallelism));
}

void ContractHarness::close_zombie() {
    Incarnation* zombie = latest_zombie();
    if (zombie == nullptr) return;
    log_calls();
    close_incarnation(*zombie);
    line(zombie->name() + "'s TaskManager learns of the cancel: close()" +
             (zombie->parallelism() > 1 ? " on every subtask" : "") +
             "; nothing reaches it any more (its own timers and its calls' late answers aside)",
         true);
    fail_over_if_failed();
}

int32_t ContractHarness::failover_parallelism(int32_t drawn) const {
    // A restart from a completed checkpoint may come back at another parallelism (a restart from a
    // retained checkpoint with another -p, the adaptive scheduler); one from scratch keeps it.
    return drawn > 0 && last_completed_ != 0 ? drawn : parallelism_;
}

void ContractHarness::stop_with_savepoint() {
    Incarnation* incarnation = live();
    if (incarnation == nullptr) return;
    in_flight_.reset();  // a checkpoint in flight is aborted; the savepoint subsumes it
    Checkpoint taken = trigger(*incarnation);
    const std::string savepoint = "savepoint " + std::to_string(taken.id);
    for (const auto& subtask : incarnation->subtasks) {
        if (!ask_pre_commit(*subtask, taken)) {
            line(savepoint + ": " + subtask->name() + " cannot pre-commit (" +
                     incarnation->failure + "); the savepoint fails",
                 true);
            fail_over_if_failed();
            return;
        }
    }
    const int64_t id = taken.id;
    checkpoints_[id] = std::move(taken);
    last_completed_ = id;
    line("STOP WITH SAVEPOINT " + std::to_string(id) + ": every subtask of " + incarnation->name() +
             " pre-commits (covers #1..#" + std::to_string(checkpoints_.at(id).position) +
             "), the savepoint completes and they are notified",
         true);
    notify(*incarnation, id);
    if (incarnation->state != Incarnation::State::live) {
        fail_over_if_failed();
        return;
    }
    log_calls();  // the notifications' calls; close()'s are the next line's
    close_incarnation(*incarnation);
    stopped_ = true;
    line(incarnation->name() +
             " is stopped (close()); the job waits for a restore from savepoint " +
             std::to_string(id),
         true);
}

void ContractHarness::restore_from_savepoint(int32_t parallelism) {
    if (!stopped_) return;
    stopped_ = false;
    restore("from savepoint", parallelism);
}

void ContractHarness::zombie_write(int32_t pick, int32_t records) {
    Incarnation* zombie = latest_zombie();
    if (zombie == nullptr) return;
    emit(*zombie->subtasks[static_cast<size_t>(pick % zombie->parallelism())], records, nullptr,
         kEverything);
    fail_over_if_failed();
}

void ContractHarness::zombie_pre_commit(int32_t pick) {
    Incarnation* zombie = latest_zombie();
    if (zombie == nullptr) return;
    Subtask& subtask = *zombie->subtasks[static_cast<size_t>(pick % zombie->parallelism())];
    if (zombie->barrier_taken[static_cast<size_t>(subtask.index)])
        return;  // its one barrier came already
    zombie->barrier_taken[static_cast<size_t>(subtask.index)] = true;
    const int64_t id =
        zombie->zombie_barrier;  // the barrier in flight at the failover; it never completes
    std::string state;
    std::string error;
    log_calls();
    if (!subtask.sink->prepare_pre_commit(
            id)) {  // a closed instance may never get ready: not waited for
        line("checkpoint " + std::to_string(id) + ": " + subtask.name() +
                 " is not ready to pre-commit (prepare_pre_commit); it never completes",
             true);
        fail_over_if_failed();
        return;
    }
    const bool ok = subtask.sink->pre_commit(id, &state, &error);
    line("checkpoint " + std::to_string(id) + ": " + subtask.name() + " pre-commits" +
             (ok ? "" : " (refused: " + error + ")") + "; it never completes",
         true);
    fail_over_if_failed();
}

void ContractHarness::finish() {
    const sim::Time now = world_.now();
    kafka_.set_unavailable_until(now);
    kafka_.set_write_failures_until(now);
    kafka_.set_commit_errors_until(now);
    kafka_.set_commit_outcome_unknown_until(now);
    store_.set_unavailable_until(now);
    for (const char* system : {"objects", "documents", "key_values", "database"}) {
        sim::OutsideFaultTarget* t = target(system);
        t->set_unavailable_until(now);
        t->set_write_errors_until(now);
        if (t->has_partial_batch_failures()) t->set_partial_batch_failure(sim::Ratio::never(), now);
        races_of(system)->calm();  // writes already late still land (within a second)
    }
    armed_point_.reset();
    line("FINAL: every fault healed");
    while (latest_zombie() != nullptr)
        close_zombie();  // their TaskManagers learn of the cancel at last
    advance(2000);
    restore_from_savepoint(parallelism_);  // a job still stopped starts again
    if (checks_.crash_after_checkpoint) checkpoint_then_crash();
    for (int round = 0; round < 5 && !violation_; ++round) {
        Incarnation* incarnation = live();
        if (incarnation == nullptr) break;
        if (!checkpoint_everything(incarnation)) continue;
        advance(5000);
        if (live() != incarnation) continue;
        if (checks_.no_leaks) {  // whatever a closed instance still runs now never stops by itself
            finished_ = true;
            advance(10000);
        }
        return;
    }
    if (!violation_)
        violation_ = "the final checkpoint did not complete in 5 rounds without faults";
}

}  // namespace eosim::testkit
