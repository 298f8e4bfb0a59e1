#include "oracles/state_after_restore_oracle.h"

#include <cstdio>
#include <stdexcept>

#include "engine/runtime/operators.h"

namespace eosim::oracles {

using engine::OperatorKind;
using engine::Record;

void StateAfterRestoreOracle::restore_started(sim::Time, int64_t attempt, int64_t checkpoint_id,
                                              const engine::SourceOffsets& offsets) {
    Restore restore;
    restore.checkpoint_id = checkpoint_id;
    restore.offsets = offsets;
    restores_[attempt] = std::move(restore);
}

void StateAfterRestoreOracle::keyed_state_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                                                   int32_t subtask, const std::map<int64_t, int64_t>& state) {
    auto it = restores_.find(attempt);
    if (it == restores_.end() || it->second.checkpoint_id == 0) return;
    Restore& restore = it->second;
    if (!restore.keyed_subtasks[vertex].insert(subtask).second) return;
    restore.loaded[vertex].insert(state.begin(), state.end());
    check_ready(at, restore);
}

void StateAfterRestoreOracle::channel_state_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                                                     int32_t subtask,
                                                     const std::vector<engine::InFlightRecords>& in_flight) {
    auto it = restores_.find(attempt);
    if (it == restores_.end() || it->second.checkpoint_id == 0) return;
    Restore& restore = it->second;
    if (!restore.channel_subtasks[vertex].insert(subtask).second) return;
    for (const engine::InFlightRecords& edge : in_flight) {
        auto& pending = restore.in_flight[edge.to_vertex];
        pending.insert(pending.end(), edge.records.begin(), edge.records.end());
    }
    check_ready(at, restore);
}

std::set<std::string> StateAfterRestoreOracle::upstream_closure(const std::string& vertex) const {
    std::set<std::string> closure{vertex};
    // Vertices are in topological order: walk backwards once.
    for (auto v = job_->vertices.rbegin(); v != job_->vertices.rend(); ++v) {
        if (!closure.contains(v->id)) continue;
        for (const engine::InputEdge& edge : v->inputs) closure.insert(edge.from);
    }
    return closure;
}

bool StateAfterRestoreOracle::ready(const Restore& restore, const std::set<std::string>& closure) const {
    for (const std::string& id : closure) {
        const engine::VertexSpec& v = *job_->find(id);
        auto reported = restore.channel_subtasks.find(id);
        if (reported == restore.channel_subtasks.end() || static_cast<int32_t>(reported->second.size()) != v.parallelism) {
            return false;
        }
        if (engine::is_keyed(v.kind)) {
            auto loaded = restore.keyed_subtasks.find(id);
            if (loaded == restore.keyed_subtasks.end() || static_cast<int32_t>(loaded->second.size()) != v.parallelism) {
                return false;
            }
        }
    }
    return true;
}

void StateAfterRestoreOracle::check_ready(sim::Time at, Restore& restore) {
    for (const engine::VertexSpec& v : job_->vertices) {
        if (!engine::is_keyed(v.kind) || restore.checked.contains(v.id)) continue;
        const std::set<std::string> closure = upstream_closure(v.id);
        if (!ready(restore, closure)) continue;
        restore.checked.insert(v.id);
        check(at, restore, v.id, replay(restore, closure, v.id));
    }
}

std::map<int64_t, int64_t> StateAfterRestoreOracle::replay(const Restore& restore, const std::set<std::string>& closure,
                                                           const std::string& vertex) {
    std::map<std::string, std::vector<Record>> produced;
    std::map<int64_t, int64_t> result;
    for (const engine::VertexSpec& v : job_->vertices) {
        if (!closure.contains(v.id)) continue;
        std::vector<Record> in;
        if (auto it = restore.in_flight.find(v.id); it != restore.in_flight.end()) in = it->second;
        in_flight_checked_ += static_cast<int64_t>(in.size());
        for (const engine::InputEdge& edge : v.inputs) {
            const auto& upstream = produced[edge.from];
            in.insert(in.end(), upstream.begin(), upstream.end());
        }
        std::vector<Record>& out = produced[v.id];
        switch (v.kind) {
            case OperatorKind::kafka_source:
            case OperatorKind::cdc_source:  // (CDC jobs refuse this oracle: the loader says so)
            case OperatorKind::union_all:
            case OperatorKind::sink: out = std::move(in); break;
            case OperatorKind::map:
                for (const Record& r : in) out.push_back(engine::apply_map(v.map, r));
                break;
            case OperatorKind::filter:
                for (const Record& r : in) {
                    if (engine::passes_filter(v.filter, r)) out.push_back(r);
                }
                break;
            case OperatorKind::keyed_count:
            case OperatorKind::keyed_sum: {
                std::map<int64_t, int64_t> state;
                if (auto it = restore.loaded.find(v.id); it != restore.loaded.end()) state = it->second;
                for (const Record& r : in) {
                    auto [at, fresh] = state.try_emplace(r.key, 0);
                    at->second = engine::fold_keyed(v.kind, fresh ? std::nullopt : std::optional<int64_t>(at->second), r);
                    out.push_back(Record{r.key, at->second});
                }
                if (v.id == vertex) result = std::move(state);
                break;
            }
            case OperatorKind::window:
                throw std::logic_error("state_after_restore has no model of a window's state (the loader refuses it)");
        }
        if (v.id == vertex) break;
    }
    return result;
}

void StateAfterRestoreOracle::check(sim::Time at, const Restore& restore, const std::string& vertex,
                                     const std::map<int64_t, int64_t>& actual) {
    ++restores_checked_;
    if (violation_) return;
    const auto expected = model_.keyed_state(vertex, restore.offsets);
    if (expected == actual) return;
    // The first key (in key order) whose value differs or is present on one side only.
    auto e = expected.begin();
    auto a = actual.begin();
    std::string detail;
    while (e != expected.end() || a != actual.end()) {
        if (a == actual.end() || (e != expected.end() && e->first < a->first)) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) + ", restored nothing";
            break;
        }
        if (e == expected.end() || a->first < e->first) {
            detail = "key " + std::to_string(a->first) + ": expected nothing, restored " + std::to_string(a->second);
            break;
        }
        if (e->second != a->second) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) + ", restored " +
                     std::to_string(a->second) + (a->second > e->second ? " (over-counted)" : " (under-counted)");
            break;
        }
        ++e;
        ++a;
    }
    char when[32];
    std::snprintf(when, sizeof when, "%.3f", at.seconds());
    violation_ = "restore of checkpoint " + std::to_string(restore.checkpoint_id) + " at t=" + when + "s, vertex '" +
                 vertex + "': " + detail;
}

Verdict StateAfterRestoreOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    std::string message = std::to_string(restores_checked_) + " restored keyed states matched the model";
    if (in_flight_checked_ > 0) message += " (with " + std::to_string(in_flight_checked_) + " restored in-flight records replayed)";
    return Verdict{true, message};
}

}  // namespace eosim::oracles
