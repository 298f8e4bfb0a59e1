// The reference model over deployments that change the program (ReferenceModel::add_deployment):
// the history is cut at each such deployment's savepoint offsets into segments, each evaluated with
// its own program over its own range of the input, its keyed state continuing the previous
// segment's by uid. Evaluation reuses ReferenceModel::produce over an input range [from, to).
#include <set>
#include <stdexcept>
#include <string>

#include "oracles/reference_model.h"

namespace eosim::oracles {

namespace {

// True when `later` is at or past `earlier` on every partition `earlier` names.
bool at_or_past(const engine::SourceOffsets& later, const engine::SourceOffsets& earlier) {
    for (const auto& [where, offset] : earlier) {
        auto it = later.find(where);
        if (it == later.end() || it->second < offset) return false;
    }
    return true;
}

// Points ReferenceModel::vertex at a segment's program while it is evaluated.
class EvaluatingProgram {
public:
    EvaluatingProgram(const engine::JobSpec*& slot, const engine::JobSpec& job)
        : slot_(slot), previous_(slot) {
        slot_ = &job;
    }
    ~EvaluatingProgram() { slot_ = previous_; }
    EvaluatingProgram(const EvaluatingProgram&) = delete;
    EvaluatingProgram& operator=(const EvaluatingProgram&) = delete;

private:
    const engine::JobSpec*& slot_;
    const engine::JobSpec* previous_;
};

}  // namespace

void ReferenceModel::add_deployment(const engine::JobSpec& job, const engine::SourceOffsets& from) {
    if (!segments_.empty() && !at_or_past(from, segments_.back().from)) {
        throw std::logic_error(
            "ReferenceModel::add_deployment: a deployment starts before the previous one");
    }
    add_deployment(job, from, segments_.size(), from);
}

void ReferenceModel::add_deployment(const engine::JobSpec& job, const engine::SourceOffsets& from,
                                    size_t origin, const engine::SourceOffsets& previous_end) {
    if (origin > segments_.size())
        throw std::logic_error("ReferenceModel::add_deployment: no segment " +
                               std::to_string(origin));
    if (from != previous_end) segment_ends_[segments_.size()] = previous_end;
    segments_.push_back(Segment{&job, from, origin});
    // Earlier answers stay true for their prefixes, but a prefix at the new start now means the new
    // program's vertices: forget the memos.
    prefix_states_.clear();
    latest_prefix_.clear();
    segmented_outputs_ready_ = false;
}

const engine::JobSpec& ReferenceModel::segment_job(size_t segment) const {
    return segment == 0 ? job_ : *segments_.at(segment - 1).job;
}

ReferenceModel::UidStates ReferenceModel::run_segment(size_t k, const UidStates& base,
                                                      const engine::SourceOffsets* to,
                                                      const std::string& sink_uid,
                                                      const Visit& visit) const {
    const engine::SourceOffsets* from = k == 0 ? nullptr : &segments_[k - 1].from;
    if (to == nullptr) {
        if (auto end = segment_ends_.find(k); end != segment_ends_.end()) {
            to = &end->second;
        } else if (k < segments_.size()) {
            to = &segments_[k].from;
        }
    }
    return run_program(segment_job(k), from, to, base, sink_uid, visit);
}

ReferenceModel::UidStates ReferenceModel::run_program(
    const engine::JobSpec& job, const engine::SourceOffsets* from, const engine::SourceOffsets* to,
    const UidStates& base, const std::string& sink_uid, const Visit& visit) const {
    const EvaluatingProgram scope(evaluating_, job);
    Evaluation start;  // the base states under this program's vertex ids
    for (const engine::VertexSpec& v : job.vertices) {
        if (auto it = base.find(v.uid_or_id()); it != base.end()) start.state[v.id] = it->second;
    }
    Evaluation end;
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind != engine::OperatorKind::sink) continue;
        if (v.uid_or_id() == sink_uid) {
            produce(v, from, to, &start, end, visit);
        } else {
            produce(v, from, to, &start, end, [](const engine::Record&) {});
        }
    }
    UidStates states;
    for (const engine::VertexSpec& v : job.vertices) {
        if (auto it = end.state.find(v.id); it != end.state.end())
            states[v.uid_or_id()] = it->second;
    }
    return states;
}

// The last segment that starts at or before `prefix`.
size_t ReferenceModel::segment_at(const engine::SourceOffsets& prefix) const {
    size_t k = 0;
    for (size_t s = 0; s < segments_.size(); ++s) {
        if (at_or_past(prefix, segments_[s].from)) k = s + 1;
    }
    return k;
}

// Segment k > 0 starts from the state its origin segment held at k's `from`.
const ReferenceModel::UidStates& ReferenceModel::states_before_segment(size_t k) const {
    if (states_before_.empty()) states_before_.emplace_back();  // segment 0 starts empty
    while (states_before_.size() <= k) {
        const Segment& next = segments_[states_before_.size() - 1];
        const UidStates& base = states_before_segment(next.origin);
        states_before_.push_back(
            run_segment(next.origin, base, &next.from, "", [](const engine::Record&) {}));
    }
    return states_before_[k];
}

std::map<int64_t, int64_t> ReferenceModel::segmented_keyed_state(
    const std::string& vertex_id, const engine::SourceOffsets& prefix) const {
    const size_t k = segment_at(prefix);
    const UidStates states =
        run_segment(k, states_before_segment(k), &prefix, "", [](const engine::Record&) {});
    for (const engine::VertexSpec& v : segment_job(k).vertices) {
        if (v.id != vertex_id) continue;
        auto it = states.find(v.uid_or_id());
        return it == states.end() ? std::map<int64_t, int64_t>{} : it->second;
    }
    throw std::out_of_range("the program at these offsets has no vertex '" + vertex_id + "'");
}

RecordMultiset ReferenceModel::segment_output(size_t segment, const std::string& sink_uid,
                                              const engine::SourceOffsets* to) const {
    const UidStates& base = states_before_segment(segment);
    return RecordMultiset::from_stream(
        [&](const Visit& visit) { run_segment(segment, base, to, sink_uid, visit); });
}

RecordMultiset ReferenceModel::output_between(const engine::JobSpec& job,
                                              const engine::SourceOffsets& from,
                                              const engine::SourceOffsets* to,
                                              const std::string& sink_uid) const {
    const size_t k = segment_at(from);
    const UidStates base =
        run_segment(k, states_before_segment(k), &from, "", [](const engine::Record&) {});
    return RecordMultiset::from_stream(
        [&](const Visit& visit) { run_program(job, &from, to, base, sink_uid, visit); });
}

ReferenceModel::PrefixOutput ReferenceModel::output_through(
    const std::string& sink_vertex, const engine::SourceOffsets& prefix) const {
    check_known_sink(sink_vertex);
    std::string sink_uid;  // as the first program that has a sink of that id names it
    for (size_t k = 0; k < segments() && sink_uid.empty(); ++k) {
        for (const engine::VertexSpec& v : segment_job(k).vertices) {
            if (v.kind == engine::OperatorKind::sink && v.id == sink_vertex)
                sink_uid = v.uid_or_id();
        }
    }
    PrefixOutput out;
    if (sink_uid.empty()) return out;  // declared, never run: nothing expected
    std::map<int64_t, int64_t> latest;
    int passes = 0;
    const size_t last = segments() - 1;
    out.records = RecordMultiset::from_stream([&](const Visit& visit) {
        const bool first = passes++ == 0;
        for (size_t k = 0; k <= last; ++k) {
            run_segment(k, states_before_segment(k), k == last ? &prefix : nullptr, sink_uid,
                        [&](const engine::Record& r) {
                            if (first) latest[r.key] = r.value;
                            visit(r);
                        });
        }
    });
    for (const auto& [key, value] : latest) out.table.push_back(engine::Record{key, value});
    return out;
}

// Each sink of every program, by the vertex id of the first program that has its uid (a sink
// whose id an earlier program's sink with another uid holds is left out): the concatenation of
// every segment's output of the sink with its uid (a segment whose program lacks it contributes
// nothing), and its keyed table.
void ReferenceModel::evaluate_segmented_outputs() const {
    if (segmented_outputs_ready_) return;
    segmented_expected_.clear();
    segmented_tables_.clear();
    std::set<std::string> uids;
    for (size_t program = 0; program < segments(); ++program) {
        for (const engine::VertexSpec& sink : segment_job(program).vertices) {
            if (sink.kind != engine::OperatorKind::sink || segmented_expected_.contains(sink.id))
                continue;
            if (!uids.insert(sink.uid_or_id()).second) continue;
            std::map<int64_t, int64_t> latest;
            int passes = 0;
            segmented_expected_[sink.id] = RecordMultiset::from_stream([&](const Visit& visit) {
                const bool first = passes++ == 0;
                for (size_t k = 0; k < segments(); ++k) {
                    run_segment(k, states_before_segment(k), nullptr, sink.uid_or_id(),
                                [&](const engine::Record& r) {
                                    if (first) latest[r.key] = r.value;
                                    visit(r);
                                });
                }
            });
            std::vector<engine::Record>& table = segmented_tables_[sink.id];
            for (const auto& [key, value] : latest) table.push_back(engine::Record{key, value});
        }
    }
    segmented_outputs_ready_ = true;
}

}  // namespace eosim::oracles
