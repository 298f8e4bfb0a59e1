#include "sim/trace.h"

#include <nlohmann/json.hpp>

namespace eosim::sim {

uint64_t digest_of(std::string_view text) { return stable_hash(text); }

void Trace::write_line(const EventKind& kind, Time at, NodeId node, uint64_t digest,
                       std::string_view note) {
    nlohmann::json line = {
        {"seq", events_}, {"t_ns", at.ns}, {"kind", kind.name}, {"digest", digest}};
    if (node != kNoNode) {
        line["node"] = node;
        if (node_name_) line["node_name"] = node_name_(node);
        if (subject_) {
            if (std::string subject = subject_(node, digest); !subject.empty())
                line["task"] = std::move(subject);
        }
    }
    if (!note.empty()) {
        line["what"] = note;
    } else if (auto it = notes_.find(digest); it != notes_.end()) {
        line["what"] = it->second;
    }
    *log_ << line.dump() << '\n';
}

}  // namespace eosim::sim
