#include "oracles/state_after_restore_oracle.h"

#include <cstdio>
#include <stdexcept>

#include "engine/runtime/dedup_operator.h"
#include "engine/runtime/join_operator.h"
#include "engine/runtime/operators.h"
#include "engine/state/key_groups.h"
#include "oracles/oracle_registry.h"

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

void StateAfterRestoreOracle::keyed_state_restored(sim::Time at, int64_t attempt,
                                                   const std::string& vertex, int32_t subtask,
                                                   const std::map<int64_t, int64_t>& state) {
    Restore* restore = first_report(attempt, &Restore::keyed_subtasks, vertex, subtask);
    if (restore == nullptr) return;
    if (!violation_) check_key_groups(at, *restore, vertex, subtask, state);
    restore->loaded[vertex].insert(state.begin(), state.end());
    check_ready(at, *restore);
}

// Each subtask holds only keys of the key groups it owns at the job's parallelism: a key restored
// elsewhere too (a rescaled restore that did not clip what it copied) is a stale copy beside the
// owner's, which the merged comparison alone cannot see.
void StateAfterRestoreOracle::check_key_groups(sim::Time at, const Restore& restore,
                                               const std::string& vertex, int32_t subtask,
                                               const std::map<int64_t, int64_t>& state) {
    const engine::VertexSpec* v = nullptr;
    for (const engine::VertexSpec& candidate : job_->vertices) {
        if (candidate.id == vertex) v = &candidate;
    }
    if (v == nullptr) return;
    for (const auto& [key, value] : state) {
        const int32_t owner = engine::subtask_for_key(key, job_->max_parallelism, v->parallelism);
        if (owner == subtask) continue;
        report(at, restore, vertex,
               "subtask " + std::to_string(subtask) + " restored key " + std::to_string(key) +
                   " (value " + std::to_string(value) + ") of key group " +
                   std::to_string(engine::key_group_of(key, job_->max_parallelism)) +
                   ", which subtask " + std::to_string(owner) + " of " +
                   std::to_string(v->parallelism) + " owns");
        return;
    }
    ++subtasks_checked_;
}

StateAfterRestoreOracle::Restore* StateAfterRestoreOracle::first_report(int64_t attempt,
                                                                        SubtaskReports kind,
                                                                        const std::string& vertex,
                                                                        int32_t subtask) {
    auto it = restores_.find(attempt);
    if (it == restores_.end() || it->second.checkpoint_id == 0) return nullptr;
    Restore& restore = it->second;
    return (restore.*kind)[vertex].insert(subtask).second ? &restore : nullptr;
}

void StateAfterRestoreOracle::channel_state_restored(
    sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
    const std::vector<engine::InFlightRecords>& in_flight) {
    Restore* restore = first_report(attempt, &Restore::channel_subtasks, vertex, subtask);
    if (restore == nullptr) return;
    for (const engine::InFlightRecords& edge : in_flight) {
        auto& pending = restore->in_flight[edge.to_vertex];
        pending.insert(pending.end(), edge.records.begin(), edge.records.end());
        auto& on_edge = restore->in_flight_edges[{edge.from_vertex, edge.to_vertex}];
        on_edge.insert(on_edge.end(), edge.records.begin(), edge.records.end());
    }
    check_ready(at, *restore);
}

void StateAfterRestoreOracle::keyed_cells_restored(
    sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
    const std::map<engine::StateKey, int64_t>& cells) {
    const engine::VertexSpec* v = job_->find(vertex);
    if (v == nullptr || v->kind != OperatorKind::join) return;  // the others compare key -> value
    Restore* restore = first_report(attempt, &Restore::cell_subtasks, vertex, subtask);
    if (restore == nullptr) return;
    restore->loaded_cells[vertex].insert(cells.begin(), cells.end());
    check_ready(at, *restore);
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

bool StateAfterRestoreOracle::ready(const Restore& restore,
                                    const std::set<std::string>& closure) const {
    for (const std::string& id : closure) {
        const engine::VertexSpec& v = *job_->find(id);
        auto reported = restore.channel_subtasks.find(id);
        if (reported == restore.channel_subtasks.end() ||
            static_cast<int32_t>(reported->second.size()) != v.parallelism) {
            return false;
        }
        if (engine::is_keyed(v.kind)) {
            auto loaded = restore.keyed_subtasks.find(id);
            if (loaded == restore.keyed_subtasks.end() ||
                static_cast<int32_t>(loaded->second.size()) != v.parallelism) {
                return false;
            }
        }
        if (v.kind == OperatorKind::join) {
            auto loaded = restore.cell_subtasks.find(id);
            if (loaded == restore.cell_subtasks.end() ||
                static_cast<int32_t>(loaded->second.size()) != v.parallelism) {
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
        std::map<engine::StateKey, int64_t> cells;
        const std::map<int64_t, int64_t> state = replay(restore, closure, v.id, cells);
        if (v.kind == OperatorKind::join) {
            check_join(at, restore, v.id, cells);
        } else {
            check(at, restore, v.id, state);
        }
    }
}

std::map<int64_t, int64_t> StateAfterRestoreOracle::replay(
    const Restore& restore, const std::set<std::string>& closure, const std::string& vertex,
    std::map<engine::StateKey, int64_t>& joined_cells) {
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
                if (auto it = restore.loaded.find(v.id); it != restore.loaded.end())
                    state = it->second;
                for (const Record& r : in) {
                    auto [at, fresh] = state.try_emplace(r.key, 0);
                    at->second = engine::fold_keyed(
                        v.kind, fresh ? std::nullopt : std::optional<int64_t>(at->second), r);
                    out.push_back(Record{r.key, at->second});
                }
                if (v.id == vertex) result = std::move(state);
                break;
            }
            case OperatorKind::window:
                throw std::logic_error(
                    "state_after_restore has no model of a window's state (the loader refuses it)");
            case OperatorKind::dedup: {
                std::map<int64_t, int64_t> period_starts;
                if (auto it = restore.loaded.find(v.id); it != restore.loaded.end())
                    period_starts = it->second;
                for (const Record& r : in) {
                    auto at = period_starts.find(r.key);
                    const auto current = at == period_starts.end()
                                             ? std::nullopt
                                             : std::optional<int64_t>(at->second);
                    if (!engine::dedup_keeps(current, r.timestamp, v.dedup.bound.millis_count()))
                        continue;
                    period_starts[r.key] = r.timestamp;
                    out.push_back(r);
                }
                if (v.id == vertex) result = std::move(period_starts);
                break;
            }
            case OperatorKind::join: {
                std::map<engine::StateKey, int64_t> cells;
                if (auto it = restore.loaded_cells.find(v.id); it != restore.loaded_cells.end())
                    cells = it->second;
                replay_join(restore, v, produced, cells, out);
                if (v.id == vertex) joined_cells = std::move(cells);
                break;
            }
        }
        if (v.id == vertex) break;
    }
    return result;
}

// The join's side inputs (each edge's in-flight records, then what its upstream produced in this
// replay) joined as the model joins them: the left rows with the right rows held, then the right
// rows with every left row.
void StateAfterRestoreOracle::replay_join(const Restore& restore, const engine::VertexSpec& v,
                                          std::map<std::string, std::vector<Record>>& produced,
                                          std::map<engine::StateKey, int64_t>& cells,
                                          std::vector<Record>& out) {
    std::map<int64_t, std::vector<Record>> rows[2];
    for (const auto& [cell, multiplicity] : cells) {
        rows[cell.state][cell.key].insert(rows[cell.state][cell.key].end(),
                                          static_cast<size_t>(multiplicity),
                                          engine::join_row(cell));
    }
    for (int32_t side = 0; side < 2; ++side) {
        const std::string& from = v.inputs[static_cast<size_t>(side)].from;
        std::vector<Record> in;
        if (auto it = restore.in_flight_edges.find({from, v.id});
            it != restore.in_flight_edges.end())
            in = it->second;
        const auto& upstream = produced[from];
        in.insert(in.end(), upstream.begin(), upstream.end());
        for (const Record& r : in) {
            for (const Record& row : rows[1 - side][r.key]) {
                out.push_back(side == 0 ? engine::join_result(r, row)
                                        : engine::join_result(row, r));
            }
            rows[side][r.key].push_back(r);
            ++cells[engine::join_row_cell(side, r)];
        }
    }
}

void StateAfterRestoreOracle::check_join(sim::Time at, const Restore& restore,
                                         const std::string& vertex,
                                         const std::map<engine::StateKey, int64_t>& actual) {
    ++restores_checked_;
    if (violation_) return;
    const auto expected = model_.keyed_cells(vertex, restore.offsets);
    joined_rows_checked_ += static_cast<int64_t>(expected.size());
    if (expected == actual) return;
    auto describe = [](const engine::StateKey& cell) {
        return "key " + std::to_string(cell.key) + ", " +
               (cell.state == engine::kJoinLeftState ? "left" : "right") + " row (timestamp " +
               std::to_string(cell.ns) + ", value " + std::to_string(cell.item) + ")";
    };
    auto e = expected.begin();
    auto a = actual.begin();
    std::string detail;
    while (e != expected.end() || a != actual.end()) {
        if (a == actual.end() || (e != expected.end() && e->first < a->first)) {
            detail = describe(e->first) + ": expected " + std::to_string(e->second) +
                     " of it, restored none";
            break;
        }
        if (e == expected.end() || a->first < e->first) {
            detail = describe(a->first) + ": expected none, restored " + std::to_string(a->second);
            break;
        }
        if (e->second != a->second) {
            detail = describe(e->first) + ": expected " + std::to_string(e->second) +
                     " of it, restored " + std::to_string(a->second);
            break;
        }
        ++e;
        ++a;
    }
    report(at, restore, vertex, detail);
}

// A dedup's state is the model's, less the periods the watermark expired before the cut, which
// depend on the interleaving (see the header): every period restored must be the model's, and a
// period the model holds may be missing only if it can have expired by the cut.
std::optional<std::string> StateAfterRestoreOracle::dedup_difference(
    const Restore& restore, const engine::VertexSpec& v, const std::map<int64_t, int64_t>& actual) {
    const auto expected = model_.keyed_state(v.id, restore.offsets);
    for (const auto& [key, start] : actual) {
        auto it = expected.find(key);
        if (it == expected.end())
            return "key " + std::to_string(key) + ": expected no period, restored one from " +
                   std::to_string(start);
        if (it->second != start) {
            return "key " + std::to_string(key) + ": expected the period from " +
                   std::to_string(it->second) + ", restored one from " + std::to_string(start);
        }
    }
    const int64_t watermark_max = model_.watermark_upper_bound(v.id, restore.offsets);
    const int64_t bound_ms = v.dedup.bound.millis_count();
    for (const auto& [key, start] : expected) {
        if (actual.contains(key)) {
            ++dedup_periods_checked_;
        } else if (start + bound_ms > watermark_max) {
            return "key " + std::to_string(key) + ": the period from " + std::to_string(start) +
                   " ends at " + std::to_string(start + bound_ms) +
                   ", after any watermark the cut allows (" + std::to_string(watermark_max) +
                   "), but was not restored";
        } else {
            ++dedup_periods_expired_;
        }
    }
    return std::nullopt;
}

void StateAfterRestoreOracle::check(sim::Time at, const Restore& restore, const std::string& vertex,
                                    const std::map<int64_t, int64_t>& actual) {
    ++restores_checked_;
    if (violation_) return;
    const engine::VertexSpec& spec = *job_->find(vertex);
    if (spec.kind == OperatorKind::dedup) {
        if (auto detail = dedup_difference(restore, spec, actual))
            report(at, restore, vertex, *detail);
        return;
    }
    const auto expected = model_.keyed_state(vertex, restore.offsets);
    if (expected == actual) return;
    // The first key (in key order) whose value differs or is present on one side only.
    auto e = expected.begin();
    auto a = actual.begin();
    std::string detail;
    while (e != expected.end() || a != actual.end()) {
        if (a == actual.end() || (e != expected.end() && e->first < a->first)) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) +
                     ", restored nothing";
            break;
        }
        if (e == expected.end() || a->first < e->first) {
            detail = "key " + std::to_string(a->first) + ": expected nothing, restored " +
                     std::to_string(a->second);
            break;
        }
        if (e->second != a->second) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) +
                     ", restored " + std::to_string(a->second) +
                     (a->second > e->second ? " (over-counted)" : " (under-counted)");
            break;
        }
        ++e;
        ++a;
    }
    report(at, restore, vertex, detail);
}

void StateAfterRestoreOracle::report(sim::Time at, const Restore& restore,
                                     const std::string& vertex, const std::string& detail) {
    char when[32];
    std::snprintf(when, sizeof when, "%.3f", at.seconds());
    violation_ = "restore of checkpoint " + std::to_string(restore.checkpoint_id) +
                 " at t=" + when + "s, vertex '" + vertex + "': " + detail;
}

Verdict StateAfterRestoreOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    std::string message =
        std::to_string(restores_checked_) + " restored keyed states matched the model (" +
        std::to_string(subtasks_checked_) + " subtasks held only their own key groups)";
    if (in_flight_checked_ > 0)
        message += " (with " + std::to_string(in_flight_checked_) +
                   " restored in-flight records replayed)";
    if (joined_rows_checked_ > 0)
        message +=
            "; " + std::to_string(joined_rows_checked_) + " join rows restored as the model's";
    if (dedup_periods_checked_ + dedup_periods_expired_ > 0) {
        message += "; dedup periods: " + std::to_string(dedup_periods_checked_) +
                   " restored as the model's, " + std::to_string(dedup_periods_expired_) +
                   " expired by the watermark before the cut (not checked)";
    }
    return Verdict{true, message};
}

OracleRegistration state_after_restore_registration() {
    return {
        "state_after_restore",
        "every restored keyed state equals the reference model's over the restored offsets",
        [](const OracleJobFacts& facts) -> std::string {
            if (engine::has_operator(facts.job, engine::OperatorKind::cdc_source)) {
                return "a job without a cdc_source (its model of a restored prefix covers Kafka offsets only)";
            }
            if (engine::has_operator(facts.job, engine::OperatorKind::window)) {
                return "a job without a window (its model of a restored prefix covers keyed count and sum; "
                       "window_output checks windows through their firings)";
            }
            return "";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto oracle = std::make_unique<StateAfterRestoreOracle>(run.model, run.job);
            StateAfterRestoreOracle* restored = oracle.get();
            run.hooks.on_program(
                [restored](const engine::JobSpec& program) { restored->set_job(program); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
