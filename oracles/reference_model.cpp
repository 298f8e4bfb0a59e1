#include "oracles/reference_model.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "engine/runtime/dedup_operator.h"
#include "engine/runtime/join_operator.h"
#include "engine/runtime/operators.h"
#include "oracles/record_sort.h"

namespace eosim::oracles {

using engine::OperatorKind;
using engine::Record;

ReferenceModel::ReferenceModel(const engine::JobSpec& job, ModelInput input,
                               std::map<std::string, std::vector<engine::Record>> tables)
    : job_(job), input_(std::move(input)), tables_(std::move(tables)) {
    for (const engine::VertexSpec& v : job_.vertices) {
        if (v.kind != OperatorKind::sink) continue;
        expected_[v.id] = RecordMultiset::from_stream_once([&](const Visit& visit) {
            Evaluation states;
            produce(v, nullptr, nullptr, nullptr, states, visit);
        });
    }
}

size_t ReferenceModel::bytes() const {
    size_t total = 0;
    for (const auto& [id, set] : expected_) total += set.bytes();
    for (const auto& [topic, partitions] : input_) {
        for (const auto& records : partitions) total += records.bytes();
    }
    return total;
}

int64_t ReferenceModel::input_records() const {
    int64_t total = 0;
    for (const auto& [topic, partitions] : input_) {
        for (const auto& records : partitions) total += static_cast<int64_t>(records.size());
    }
    for (const auto& [table, rows] : tables_) total += static_cast<int64_t>(rows.size());
    return total;
}

namespace {

// Where `offsets` says partition (topic, p) stands, at most `size`; `unnamed` when it does not name
// it.
size_t offset_in(const engine::SourceOffsets& offsets, const std::string& topic, size_t p,
                 size_t size, size_t unnamed) {
    auto it = offsets.find({topic, static_cast<int32_t>(p)});
    return it == offsets.end()
               ? unnamed
               : std::min(size, static_cast<size_t>(std::max<int64_t>(0, it->second)));
}

// Hands `each(i, record)` every record of `records` from `first` to below `end`, in order, the
// columns decoded a range at a time rather than a record at a time.
template <typename Each>
void for_each_stored(const sim::external::RecordColumns& records, size_t first, size_t end,
                     const Each& each) {
    sim::for_each_decoded_range(
        first, end,
        [&each](size_t at, std::span<int64_t> keys, std::span<int64_t> values,
                std::span<int64_t> timestamps) {
            for (size_t i = 0; i < keys.size(); ++i)
                each(at + i, sim::external::KafkaRecord{keys[i], values[i], timestamps[i]});
        },
        records.keys(), records.values(), records.timestamps());
}

// A stored input record's event time (0 until the input carries one).
template <class StoredRecord>
int64_t event_time_of(const StoredRecord& r) {
    if constexpr (requires { r.timestamp; }) {
        return r.timestamp;
    } else {
        return 0;
    }
}

// True when `later` is at or past `earlier` on every partition `earlier` names.
bool extends(const engine::SourceOffsets& later, const engine::SourceOffsets& earlier) {
    for (const auto& [where, offset] : earlier) {
        auto it = later.find(where);
        if (it == later.end() || it->second < offset) return false;
    }
    return true;
}

// A source's bounded out-of-orderness in ms (its watermark strategy); nullopt: no watermarks.
std::optional<int64_t> source_out_of_orderness_ms(const engine::VertexSpec& source) {
    if (!source.watermarks) return std::nullopt;
    return source.watermarks->out_of_orderness.millis_count();
}

}  // namespace

const engine::VertexSpec& ReferenceModel::vertex(const std::string& id) const {
    for (const engine::VertexSpec& v : evaluating_->vertices) {
        if (v.id == id) return v;
    }
    throw std::out_of_range("the job has no vertex '" + id + "'");
}

void ReferenceModel::produce(const engine::VertexSpec& v, const engine::SourceOffsets* from,
                             const engine::SourceOffsets* to, const Evaluation* base,
                             Evaluation& out, const Visit& visit, bool late_output) const {
    // v's input: its source records, or each input edge's upstream output in edge order.
    auto each_input = [&](const Visit& take) {
        if (v.kind == OperatorKind::kafka_source) {
            const auto topic = input_.find(v.topic);
            if (topic == input_.end()) return;  // a topic no input writes to: no records
            const auto& partitions = topic->second;
            for (size_t p = 0; p < partitions.size(); ++p) {
                SplitWatermark split(source_out_of_orderness_ms(v));
                const size_t size = partitions[p].size();
                const size_t end = to == nullptr ? size : offset_in(*to, v.topic, p, size, 0);
                const size_t begin =
                    from == nullptr ? 0 : std::min(end, offset_in(*from, v.topic, p, size, 0));
                // With watermarks the records before `begin` are read too (the watermark so far). A
                // source without watermarks has every record in-bound (SplitWatermark::next says
                // so): not asked.
                const size_t first = v.watermarks ? 0 : begin;
                for_each_stored(
                    partitions[p], first, end, [&](size_t i, const sim::external::KafkaRecord& r) {
                        const bool in_bound = !v.watermarks || split.next(r.timestamp);
                        if (i < begin) return;
                        current_in_bound_ = in_bound;
                        take(Record{r.key, r.value, 0, engine::RowKind::insert, r.timestamp});
                    });
            }
        } else if (v.kind == OperatorKind::cdc_source) {
            if (to != nullptr)
                throw std::logic_error("the model has no prefix states of a cdc_source job");
            for (const Record& r : tables_.at(v.table)) take(r);
        } else {
            for (const engine::InputEdge& edge : v.inputs)
                produce(vertex(edge.from), from, to, base, out, take, edge.output == "late");
        }
    };
    switch (v.kind) {
        case OperatorKind::kafka_source:
        case OperatorKind::cdc_source:
        case OperatorKind::union_all:
        case OperatorKind::sink: each_input(visit); break;
        case OperatorKind::map:
            each_input([&](const Record& r) { visit(engine::apply_map(v.map, r)); });
            break;
        case OperatorKind::filter:
            each_input([&](const Record& r) {
                if (engine::passes_filter(v.filter, r)) visit(r);
            });
            break;
        case OperatorKind::keyed_count:
        case OperatorKind::keyed_sum: {
            // A hash map for speed; its order never reaches the result, which is copied into an
            // ordered map below.
            std::unordered_map<int64_t, int64_t> state;
            if (base != nullptr) {
                if (auto it = base->state.find(v.id); it != base->state.end())
                    state.insert(it->second.begin(), it->second.end());
            }
            each_input([&](const Record& r) {
                auto [it, fresh] = state.try_emplace(r.key, 0);
                it->second = engine::fold_keyed(
                    v.kind, fresh ? std::nullopt : std::optional<int64_t>(it->second), r);
                visit(Record{r.key, it->second, 0, engine::RowKind::insert, r.timestamp});
            });
            out.state[v.id] = std::map<int64_t, int64_t>(state.begin(), state.end());
            break;
        }
        case OperatorKind::window: {
            WindowModel model(v.window);
            each_input([&](const Record& r) { model.add(r, current_in_bound_); });
            if (!late_output)
                model.emit_results(visit);  // late: nothing, for in-bound inputs (see the header)
            if (from == nullptr && to == nullptr)
                window_models_.insert_or_assign(v.id, std::move(model));
            break;
        }
        case OperatorKind::join: produce_join(v, from, to, base, out, visit); break;
        case OperatorKind::dedup: {
            // Each key's period start; the model never expires a period (the engine's expiry by
            // watermark changes no outcome for in-bound input: engine/runtime/dedup_operator.h).
            std::map<int64_t, int64_t> period_starts;
            if (base != nullptr) {
                if (auto it = base->state.find(v.id); it != base->state.end())
                    period_starts = it->second;
            }
            const int64_t bound_ms = v.dedup.bound.millis_count();
            each_input([&](const Record& r) {
                auto it = period_starts.find(r.key);
                const std::optional<int64_t> current =
                    it == period_starts.end() ? std::nullopt : std::optional(it->second);
                if (!engine::dedup_keeps(current, r.timestamp, bound_ms)) return;
                period_starts[r.key] = r.timestamp;
                visit(r);
            });
            out.state[v.id] = std::move(period_starts);
            break;
        }
    }
}

const WindowModel& ReferenceModel::window_model(const std::string& id) const {
    if (auto it = window_models_.find(id); it != window_models_.end()) return it->second;
    Evaluation states;
    produce(vertex(id), nullptr, nullptr, nullptr, states, [](const Record&) {});
    return window_models_.at(id);
}

// The join over the input from `from` to `to`, continuing `base`'s rows: the new left rows joined
// with the rows of the right side held so far, then the new right rows with every left row. Every
// pair with at least one new row is emitted exactly once, whatever the split into prefixes.
void ReferenceModel::produce_join(const engine::VertexSpec& v, const engine::SourceOffsets* from,
                                  const engine::SourceOffsets* to, const Evaluation* base,
                                  Evaluation& out, const Visit& visit) const {
    std::map<engine::StateKey, int64_t> cells;
    if (base != nullptr) {
        if (auto it = base->cells.find(v.id); it != base->cells.end()) cells = it->second;
    }
    // Each side's rows by key (a hash map for speed; its order never reaches the result: a key's
    // rows are visited in the order they were added).
    std::unordered_map<int64_t, std::vector<Record>> rows[2];
    for (const auto& [cell, multiplicity] : cells) {
        auto& held = rows[cell.state][cell.key];
        held.insert(held.end(), static_cast<size_t>(multiplicity), engine::join_row(cell));
    }
    for (int32_t side = 0; side < 2; ++side) {
        const int32_t other = 1 - side;
        produce(vertex(v.inputs[static_cast<size_t>(side)].from), from, to, base, out,
                [&](const Record& r) {
                    if (auto it = rows[other].find(r.key); it != rows[other].end()) {
                        for (const Record& row : it->second)
                            visit(side == 0 ? engine::join_result(r, row)
                                            : engine::join_result(row, r));
                    }
                    Record row = r;
                    row.version = 0;
                    row.kind = engine::RowKind::insert;
                    rows[side][r.key].push_back(row);
                    ++cells[engine::join_row_cell(side, row)];
                });
    }
    out.cells[v.id] = std::move(cells);
}

void ReferenceModel::expect_sinks(const std::vector<std::string>& sink_vertices) {
    declared_sinks_.insert(sink_vertices.begin(), sink_vertices.end());
}

void ReferenceModel::check_known_sink(const std::string& sink_vertex) const {
    if (declared_sinks_.contains(sink_vertex) || expected_.contains(sink_vertex)) return;
    for (const Segment& segment : segments_) {
        const engine::VertexSpec* v = segment.job->find(sink_vertex);
        if (v != nullptr && v->kind == engine::OperatorKind::sink) return;
    }
    throw std::invalid_argument("reference model: no sink '" + sink_vertex +
                                "' in any program it ran or was told of (expect_sinks)");
}

const RecordMultiset& ReferenceModel::expected_output(const std::string& sink_vertex) const {
    check_known_sink(sink_vertex);
    static const RecordMultiset kNothing;
    const std::map<std::string, RecordMultiset>* expected = &expected_;
    if (!segments_.empty()) {
        evaluate_segmented_outputs();
        expected = &segmented_expected_;
    }
    const auto it = expected->find(sink_vertex);
    return it == expected->end() ? kNothing : it->second;
}

const std::vector<Record>& ReferenceModel::sink_output(const std::string& id) const {
    auto it = unpacked_outputs_.find(id);
    if (it != unpacked_outputs_.end()) return it->second;
    std::vector<Record> output;
    Evaluation states;
    produce(vertex(id), nullptr, nullptr, nullptr, states,
            [&output](const Record& r) { output.push_back(r); });
    sort_records(output);
    return unpacked_outputs_[id] = std::move(output);
}

const std::vector<Record>& ReferenceModel::final_table(const std::string& sink_vertex) const {
    check_known_sink(sink_vertex);
    static const std::vector<Record> kNothing;
    if (!segments_.empty()) {
        evaluate_segmented_outputs();
        const auto it = segmented_tables_.find(sink_vertex);
        return it == segmented_tables_.end() ? kNothing : it->second;
    }
    if (const auto it = final_tables_.find(sink_vertex); it != final_tables_.end())
        return it->second;
    if (!expected_.contains(sink_vertex)) return kNothing;
    // Evaluated on first request (only keyed-table sinks ask): each key's last record in evaluation
    // order (each key's own order). A hash map for speed (one lookup per output record); its order
    // never reaches the result, which is sorted by key below.
    std::unordered_map<int64_t, int64_t> latest;
    Evaluation states;
    produce(vertex(sink_vertex), nullptr, nullptr, nullptr, states,
            [&latest](const Record& r) { latest[r.key] = r.value; });
    std::vector<Record> table;
    table.reserve(latest.size());
    for (const auto& [key, value] : latest) table.push_back(Record{key, value});
    std::sort(table.begin(), table.end());  // keys are unique: by key
    return final_tables_[sink_vertex] = std::move(table);
}

int64_t ReferenceModel::watermark_upper_bound(const std::string& id,
                                              const engine::SourceOffsets& prefix) const {
    std::set<std::string> upstream{id};
    int64_t max_timestamp = kNoWatermark;
    bool complete = true;
    for (auto v = job_.vertices.rbegin(); v != job_.vertices.rend(); ++v) {
        if (!upstream.contains(v->id)) continue;
        for (const engine::InputEdge& edge : v->inputs) upstream.insert(edge.from);
        if (v->kind == OperatorKind::cdc_source)
            complete = false;  // (CDC jobs have no prefix states)
        if (v->kind != OperatorKind::kafka_source) continue;
        const auto topic = input_.find(v->topic);
        if (topic == input_.end()) continue;
        for (size_t p = 0; p < topic->second.size(); ++p) {
            const auto& records = topic->second[p];
            const size_t end = offset_in(prefix, v->topic, p, records.size(), 0);
            if (end < records.size()) complete = false;
            for (size_t i = 0; i < end; ++i)
                max_timestamp = std::max(max_timestamp, event_time_of(records[i]));
        }
    }
    if (complete) return kNoWatermarkLimit;
    return max_timestamp == kNoWatermark ? kNoWatermark : max_timestamp - 1;
}

const ReferenceModel::Evaluation& ReferenceModel::prefix_evaluation(
    const std::string& vertex, const engine::SourceOffsets& prefix) const {
    auto latest = latest_prefix_.find(vertex);
    if (latest != latest_prefix_.end() && latest->second.prefix == prefix)
        return latest->second.states;
    // Restores mostly come in checkpoint order: continue from the latest prefix evaluated for this
    // vertex when the new one extends it, over only the records in between.
    const LatestPrefix* base = nullptr;
    if (latest != latest_prefix_.end() && extends(prefix, latest->second.prefix))
        base = &latest->second;
    Evaluation eval;
    produce(this->vertex(vertex), base == nullptr ? nullptr : &base->prefix, &prefix,
            base == nullptr ? nullptr : &base->states, eval, [](const Record&) {});
    LatestPrefix& slot = latest_prefix_[vertex];
    slot = LatestPrefix{prefix, std::move(eval)};
    return slot.states;
}

std::map<int64_t, int64_t> ReferenceModel::keyed_state(const std::string& vertex,
                                                       const engine::SourceOffsets& prefix) const {
    auto memo = prefix_states_.find({vertex, prefix});
    if (memo != prefix_states_.end()) return memo->second;
    if (!segments_.empty())
        return prefix_states_[{vertex, prefix}] = segmented_keyed_state(vertex, prefix);
    const Evaluation& eval = prefix_evaluation(vertex, prefix);
    auto it = eval.state.find(vertex);
    std::map<int64_t, int64_t> state =
        it == eval.state.end() ? std::map<int64_t, int64_t>{} : it->second;
    return prefix_states_[{vertex, prefix}] = std::move(state);
}

std::map<engine::StateKey, int64_t> ReferenceModel::keyed_cells(
    const std::string& vertex, const engine::SourceOffsets& prefix) const {
    if (!segments_.empty()) {
        throw std::logic_error(
            "the model has no join cells across deployments that change the program (not modelled yet)");
    }
    const Evaluation& eval = prefix_evaluation(vertex, prefix);
    auto it = eval.cells.find(vertex);
    return it == eval.cells.end() ? std::map<engine::StateKey, int64_t>{} : it->second;
}

}  // namespace eosim::oracles
