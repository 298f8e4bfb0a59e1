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
    full_ = evaluate(nullptr, nullptr, nullptr, {});
    for (const engine::VertexSpec& v : job_.vertices) {
        if (v.kind != OperatorKind::sink) continue;
        std::map<int64_t, int64_t> latest;  // evaluation order is each key's order
        for (const Record& r : full_.outputs.at(v.id)) latest[r.key] = r.value;
        std::vector<Record>& table = final_tables_[v.id];
        table.reserve(latest.size());
        for (const auto& [key, value] : latest) table.push_back(Record{key, value});
    }
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

}  // namespace

ReferenceModel::Evaluation ReferenceModel::evaluate(const engine::SourceOffsets* from, const engine::SourceOffsets* to,
                                                    const Evaluation* base, const std::string& last_vertex) const {
    Evaluation eval;
    for (const engine::VertexSpec& v : job_.vertices) {
        std::vector<Record> in;
        if (v.kind == OperatorKind::kafka_source) {
            const auto& partitions = input_.at(v.topic);
            for (size_t p = 0; p < partitions.size(); ++p) {
                const size_t size = partitions[p].size();
                const size_t end = to == nullptr ? size : offset_in(*to, v.topic, p, size, 0);
                const size_t begin = from == nullptr ? 0 : std::min(end, offset_in(*from, v.topic, p, size, 0));
                in.insert(in.end(), partitions[p].begin() + static_cast<std::ptrdiff_t>(begin),
                          partitions[p].begin() + static_cast<std::ptrdiff_t>(end));
            }
        } else if (v.kind == OperatorKind::cdc_source) {
            if (to != nullptr) throw std::logic_error("the model has no prefix states of a cdc_source job");
            const auto& rows = tables_.at(v.table);
            in.assign(rows.begin(), rows.end());
        } else {
            for (const engine::InputEdge& edge : v.inputs) {
                const auto& upstream = eval.outputs.at(edge.from);
                in.insert(in.end(), upstream.begin(), upstream.end());
            }
        }
        std::vector<Record>& out = eval.outputs[v.id];
        switch (v.kind) {
            case OperatorKind::kafka_source:
            case OperatorKind::cdc_source:
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
                // A hash map for speed; its order never reaches the result, which is copied into an
                // ordered map below.
                std::unordered_map<int64_t, int64_t> state;
                if (base != nullptr) {
                    if (auto it = base->state.find(v.id); it != base->state.end()) state.insert(it->second.begin(), it->second.end());
                }
                out.reserve(in.size());
                for (const Record& r : in) {
                    auto [it, fresh] = state.try_emplace(r.key, 0);
                    it->second = engine::fold_keyed(v.kind, fresh ? std::nullopt : std::optional<int64_t>(it->second), r);
                    out.push_back(Record{r.key, it->second});
                }
                eval.state[v.id] = std::map<int64_t, int64_t>(state.begin(), state.end());
                break;
            }
        }
        if (v.id == last_vertex) break;
    }
    return eval;
}

const std::vector<Record>& ReferenceModel::sink_output(const std::string& sink_vertex) const {
    std::vector<Record>& output = full_.outputs.at(sink_vertex);
    if (sorted_outputs_.insert(sink_vertex).second) sort_records(output);
    return output;
}

const std::vector<Record>& ReferenceModel::final_table(const std::string& sink_vertex) const {
    return final_tables_.at(sink_vertex);
}

std::map<int64_t, int64_t> ReferenceModel::keyed_state(const std::string& vertex, const engine::SourceOffsets& prefix) const {
    auto memo = prefix_states_.find({vertex, prefix});
    if (memo != prefix_states_.end()) return memo->second;
    // Restores mostly come in checkpoint order: continue from the latest prefix evaluated for this
    // vertex when the new one extends it, over only the records in between.
    const LatestPrefix* base = nullptr;
    if (auto it = latest_prefix_.find(vertex); it != latest_prefix_.end() && extends(prefix, it->second.prefix)) {
        base = &it->second;
    }
    Evaluation eval = evaluate(base == nullptr ? nullptr : &base->prefix, &prefix,
                               base == nullptr ? nullptr : &base->states, vertex);
    eval.outputs.clear();  // only the states carry over
    std::map<int64_t, int64_t> state = eval.state[vertex];
    latest_prefix_[vertex] = LatestPrefix{prefix, std::move(eval)};
    return prefix_states_[{vertex, prefix}] = std::move(state);
}

}  // namespace eosim::oracles
