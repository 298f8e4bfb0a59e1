#include "oracles/reference_model.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

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
        // Each key's last record in evaluation order (each key's own order). A hash map for speed
        // (this is one lookup per output record); its order never reaches the result, which is
        // sorted by key below.
        std::unordered_map<int64_t, int64_t> latest;
        int passes = 0;
        expected_[v.id] = RecordMultiset::from_stream([&](const Visit& visit) {
            Evaluation states;
            if (passes++ == 0) {
                produce(v, nullptr, nullptr, nullptr, states, [&](const Record& r) {
                    latest[r.key] = r.value;
                    visit(r);
                });
            } else {
                produce(v, nullptr, nullptr, nullptr, states, visit);
            }
        });
        std::vector<Record>& table = final_tables_[v.id];
        table.reserve(latest.size());
        for (const auto& [key, value] : latest) table.push_back(Record{key, value});
        std::sort(table.begin(), table.end());  // keys are unique: by key
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

// Where `offsets` says partition (topic, p) stands, at most `size`; `unnamed` when it does not name it.
size_t offset_in(const engine::SourceOffsets& offsets, const std::string& topic, size_t p, size_t size, size_t unnamed) {
    auto it = offsets.find({topic, static_cast<int32_t>(p)});
    return it == offsets.end() ? unnamed : std::min(size, static_cast<size_t>(std::max<int64_t>(0, it->second)));
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
                             const engine::SourceOffsets* to, const Evaluation* base, Evaluation& out,
                             const Visit& visit, bool late_output) const {
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
                const size_t begin = from == nullptr ? 0 : std::min(end, offset_in(*from, v.topic, p, size, 0));
                for (size_t i = 0; i < begin; ++i) split.next(partitions[p][i].timestamp);
                for (size_t i = begin; i < end; ++i) {
                    const sim::external::KafkaRecord r = partitions[p][i];
                    current_in_bound_ = split.next(r.timestamp);
                    take(Record{r.key, r.value, 0, engine::RowKind::insert, r.timestamp});
                }
            }
        } else if (v.kind == OperatorKind::cdc_source) {
            if (to != nullptr) throw std::logic_error("the model has no prefix states of a cdc_source job");
            for (const Record& r : tables_.at(v.table)) take(r);
        } else {
            for (const engine::InputEdge& edge : v.inputs) produce(vertex(edge.from), from, to, base, out, take, edge.output == "late");
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
                if (auto it = base->state.find(v.id); it != base->state.end()) state.insert(it->second.begin(), it->second.end());
            }
            each_input([&](const Record& r) {
                auto [it, fresh] = state.try_emplace(r.key, 0);
                it->second = engine::fold_keyed(v.kind, fresh ? std::nullopt : std::optional<int64_t>(it->second), r);
                visit(Record{r.key, it->second, 0, engine::RowKind::insert, r.timestamp});
            });
            out.state[v.id] = std::map<int64_t, int64_t>(state.begin(), state.end());
            break;
        }
        case OperatorKind::window: {
            WindowModel model(v.window);
            each_input([&](const Record& r) { model.add(r, current_in_bound_); });
            if (!late_output) model.emit_results(visit);  // late: nothing, for in-bound inputs (see the header)
            if (from == nullptr && to == nullptr) window_models_.insert_or_assign(v.id, std::move(model));
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

const RecordMultiset& ReferenceModel::expected_output(const std::string& sink_vertex) const {
    if (!segments_.empty()) {
        evaluate_segmented_outputs();
        return segmented_expected_.at(sink_vertex);
    }
    return expected_.at(sink_vertex);
}

const std::vector<Record>& ReferenceModel::sink_output(const std::string& id) const {
    auto it = unpacked_outputs_.find(id);
    if (it != unpacked_outputs_.end()) return it->second;
    std::vector<Record> output;
    Evaluation states;
    produce(vertex(id), nullptr, nullptr, nullptr, states, [&output](const Record& r) { output.push_back(r); });
    sort_records(output);
    return unpacked_outputs_[id] = std::move(output);
}

const std::vector<Record>& ReferenceModel::final_table(const std::string& sink_vertex) const {
    if (!segments_.empty()) {
        evaluate_segmented_outputs();
        return segmented_tables_.at(sink_vertex);
    }
    return final_tables_.at(sink_vertex);
}

std::map<int64_t, int64_t> ReferenceModel::keyed_state(const std::string& vertex, const engine::SourceOffsets& prefix) const {
    auto memo = prefix_states_.find({vertex, prefix});
    if (memo != prefix_states_.end()) return memo->second;
    if (!segments_.empty()) return prefix_states_[{vertex, prefix}] = segmented_keyed_state(vertex, prefix);
    // Restores mostly come in checkpoint order: continue from the latest prefix evaluated for this
    // vertex when the new one extends it, over only the records in between.
    const LatestPrefix* base = nullptr;
    if (auto it = latest_prefix_.find(vertex); it != latest_prefix_.end() && extends(prefix, it->second.prefix)) {
        base = &it->second;
    }
    Evaluation eval;
    produce(this->vertex(vertex), base == nullptr ? nullptr : &base->prefix, &prefix,
            base == nullptr ? nullptr : &base->states, eval, [](const Record&) {});
    std::map<int64_t, int64_t> state = eval.state[vertex];
    latest_prefix_[vertex] = LatestPrefix{prefix, std::move(eval)};
    return prefix_states_[{vertex, prefix}] = std::move(state);
}

}  // namespace eosim::oracles
