// The harness's checks (contract_harness.h): what the outside system shows after every step and at
// the end, against the job's output sequence and the completed checkpoints.
#include <algorithm>
#include <map>

#include "testkit/contract_harness.h"

namespace eosim::testkit {

std::optional<std::string> ContractHarness::violation(const std::string& what) {
    log_calls();
    violation_ = "after step " + std::to_string(step_) + ": " + what +
                 "\n  the outside system shows " + last_output_;
    return violation_;
}

std::optional<std::string> ContractHarness::check() {
    if (violation_) return violation_;
    // The reader is a client too: a late write whose turn comes lands before its read.
    for (const std::string& system : contract_systems()) {
        if (sim::external::CallRaces* races = races_of(system)) races->before_call();
    }
    const std::vector<engine::Record> output = config_->read_output(systems_);
    last_output_ = describe_output(output);
    const int64_t written = static_cast<int64_t>(sequence_.size());
    const int64_t completed = completed_position();
    const bool committed_only = checks_.visibility;
    std::map<int64_t, int32_t> seen;  // by value (unique per record of S), or by key for a table
    for (const engine::Record& r : output) {
        if (r.value < 1 || r.value > written ||
            sequence_[static_cast<size_t>(r.value - 1)].key != r.key) {
            return violation("record " + describe(r) + " is visible but was never written");
        }
        if (committed_only && r.value > completed) {
            return violation(
                "record " + describe(r) + " is visible but no completed checkpoint covers it (" +
                (completed == 0 ? std::string("none has completed")
                                : "the completed ones cover #1..#" + std::to_string(completed)) +
                ")");
        }
        if (config_->output_shape() == engine::SinkOutputShape::appended) {
            if (++seen[r.value] == 2 && checks_.exactly_once) {
                return violation("record " + describe(r) + " is visible TWICE (a duplicate)");
            }
        } else {
            if (++seen[r.key] == 2)
                return violation("key k" + std::to_string(r.key) + " is shown in two rows");
            auto [it, inserted] = shown_values_.emplace(r.key, r.value);
            if (!inserted) {
                if (r.value < it->second && checks_.no_key_backwards) {
                    return violation("key k" + std::to_string(r.key) + " went BACKWARDS from #" +
                                     std::to_string(it->second) + " to #" +
                                     std::to_string(r.value));
                }
                it->second = r.value;
            }
        }
    }
    return std::nullopt;
}

std::pair<size_t, size_t> ContractHarness::leaks() const {
    return {objects_.open_uploads().size(), open_kafka_transactions().size()};
}

std::vector<std::string> ContractHarness::open_kafka_transactions() const {
    std::vector<int64_t> open;
    for (int32_t p = 0; p < options_.kafka_partitions; ++p) {
        for (int64_t t : kafka_.open_transactions("output", p)) {
            if (std::find(open.begin(), open.end(), t) == open.end()) open.push_back(t);
        }
    }
    std::vector<std::string> ids;
    for (int64_t t : open) ids.push_back(kafka_.transaction_view(t).transactional_id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::optional<std::string> ContractHarness::check_final() {
    if (auto v = check()) return v;
    if (checks_.no_leaks) {
        const auto [uploads, transactions] = leaks();
        if (uploads != 0)
            return violation("at the end, " + std::to_string(uploads) +
                             " multipart upload(s) are still open (a leak)");
        if (transactions != 0) {
            return violation("at the end, " + std::to_string(transactions) +
                             " Kafka transaction(s) are still open (a leak)");
        }
        if (timers_after_close_ != 0) {
            return violation("after the end, timers of closed instances fired " +
                             std::to_string(timers_after_close_) +
                             " time(s) in 10 s (a retry loop that never stops)");
        }
    }
    if (auto v = final_output()) return v;
    if (checks_.freshness) {
        const std::vector<std::string> open = open_kafka_transactions();
        std::string ids;
        for (const std::string& id : open) ids += (ids.empty() ? "\"" : ", \"") + id + "\"";
        if (!open.empty()) {
            return violation(
                "at the end, " + std::to_string(open.size()) +
                " Kafka transaction(s) still open hold records on \"output\" (" + ids +
                "): read_committed readers wait for the broker's transaction timeout (lingering transactions "
                "nobody aborted: after a rescale, a subtask aborts those above the restored checkpoint of every "
                "subtask index that maps to it, FLINK-23854; engine/connectors/sink.h)");
        }
    }
    return std::nullopt;
}

// The final output against the completed checkpoints (MISSING, a wrong value), before freshness:
// data lost says more than a transaction left open.
std::optional<std::string> ContractHarness::final_output() {
    const std::vector<engine::Record> output = config_->read_output(systems_);
    const int64_t completed = completed_position();
    if (!checks_.exactly_once && !checks_.at_least_once) return std::nullopt;
    if (config_->output_shape() == engine::SinkOutputShape::appended) {
        std::map<int64_t, int32_t> count;
        for (const engine::Record& r : output) ++count[r.value];
        for (int64_t v = 1; v <= completed; ++v) {
            if (count[v] == 0) {
                return violation("at the end, record " +
                                 describe(sequence_[static_cast<size_t>(v - 1)]) +
                                 " of completed checkpoint " + std::to_string(last_completed_) +
                                 " is MISSING (lost)");
            }
        }
        return std::nullopt;  // extras and duplicates were caught by check()
    }
    std::map<int64_t, int64_t> expected;
    for (int64_t v = 1; v <= completed; ++v)
        expected[sequence_[static_cast<size_t>(v - 1)].key] = v;
    std::map<int64_t, int64_t> shown;
    for (const engine::Record& r : output) shown[r.key] = r.value;
    for (const auto& [key, value] : expected) {
        auto it = shown.find(key);
        if (it == shown.end() || it->second != value) {
            return violation(
                "at the end, key k" + std::to_string(key) + " should hold #" +
                std::to_string(value) +
                " (the last value of the completed checkpoints) but shows " +
                (it == shown.end() ? std::string("nothing") : "#" + std::to_string(it->second)));
        }
    }
    for (const auto& [key, value] : shown) {
        if (!expected.contains(key)) {
            return violation("at the end, key k" + std::to_string(key) + " shows #" +
                             std::to_string(value) + " though no completed checkpoint wrote it");
        }
    }
    return std::nullopt;
}

}  // namespace eosim::testkit
