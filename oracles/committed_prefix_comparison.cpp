#include "oracles/committed_prefix_comparison.h"

#include <map>
#include <set>

namespace eosim::oracles {

namespace {

// Per key: the model's row at the lower cut (its last value, or its record count) and the values
// the key takes after it (its records past the lower cut's, or its count over the whole input).
struct TableBounds {
    std::map<int64_t, int64_t> at_lower;
    std::map<int64_t, std::set<int64_t>> later_values;
    std::map<int64_t, int64_t> whole_counts;
};

TableBounds table_bounds(const ReferenceModel& model, const std::string& sink,
                         const CommittedPrefix& prefix, bool counts) {
    TableBounds bounds;
    const ReferenceModel::PrefixOutput lower = model.output_through(sink, prefix.lower);
    const RecordMultiset& whole = model.expected_output(sink);
    if (counts) {
        for (size_t i = 0; i < lower.records.size(); ++i) ++bounds.at_lower[lower.records[i].key];
        for (size_t i = 0; i < whole.size(); ++i) ++bounds.whole_counts[whole[i].key];
        return bounds;
    }
    for (const engine::Record& row : lower.table) bounds.at_lower[row.key] = row.value;
    // Both sorted: the whole output's records that the lower cut's output does not account for.
    size_t j = 0;
    for (size_t i = 0; i < whole.size(); ++i) {
        const engine::Record r = whole[i];
        while (j < lower.records.size() && lower.records[j] < r) ++j;
        if (j < lower.records.size() && lower.records[j] == r) {
            ++j;
        } else {
            bounds.later_values[r.key].insert(r.value);
        }
    }
    return bounds;
}

}  // namespace

std::string failed_job_needs(const OracleJobFacts& facts) {
    if (!facts.expects_job_failure ||
        !engine::has_operator(facts.job, engine::OperatorKind::cdc_source))
        return "";
    return "Kafka inputs to judge a failed job's committed prefix (a CDC job's model reads the source table at the end; "
           "list mirror to judge a failed CDC copy)";
}

CommittedPrefixComparison CommittedPrefixComparison::appended(const ReferenceModel& model,
                                                              const std::string& sink,
                                                              const CommittedPrefix& prefix,
                                                              const RecordMultiset& actual) {
    const RecordMultiset lower = model.output_through(sink, prefix.lower).records;
    const RecordMultiset upper =
        prefix.upper == prefix.lower ? lower : model.output_through(sink, prefix.upper).records;
    const OutputComparison low = OutputComparison::of(lower, actual);
    const OutputComparison high = OutputComparison::of(upper, actual);
    CommittedPrefixComparison c;
    c.committed = static_cast<int64_t>(actual.size());
    c.lower_expected = static_cast<int64_t>(lower.size());
    c.upper_expected = static_cast<int64_t>(upper.size());
    c.missing = low.missing_records;
    c.beyond = high.duplicate_records;
    if (low.first_missing) {
        c.first = "first missing " + OutputComparison::describe(*low.first_missing) + " by " +
                  prefix.lower_name;
    } else if (high.first_duplicate) {
        c.first = "first beyond " + OutputComparison::describe(*high.first_duplicate) + " by " +
                  prefix.upper_name;
    }
    return c;
}

CommittedPrefixComparison CommittedPrefixComparison::table(const ReferenceModel& model,
                                                           const std::string& sink,
                                                           const CommittedPrefix& prefix,
                                                           const RecordMultiset& actual,
                                                           bool counts) {
    const TableBounds bounds = table_bounds(model, sink, prefix, counts);
    CommittedPrefixComparison c;
    c.committed = static_cast<int64_t>(actual.size());
    c.lower_expected = static_cast<int64_t>(bounds.at_lower.size());
    c.upper_expected =
        static_cast<int64_t>(counts ? bounds.whole_counts.size() : model.final_table(sink).size());
    auto note = [&c](const std::string& what) {
        if (c.first.empty()) c.first = what;
    };
    std::map<int64_t, int64_t> shown;
    for (size_t i = 0; i < actual.size(); ++i) {
        const engine::Record row = actual[i];
        if (!shown.emplace(row.key, row.value).second) {
            ++c.beyond;
            note("key " + std::to_string(row.key) + " shown twice");
            continue;
        }
        const auto low = bounds.at_lower.find(row.key);
        const int64_t floor = low == bounds.at_lower.end() ? 0 : low->second;
        bool allowed = false;
        if (counts) {
            const auto high = bounds.whole_counts.find(row.key);
            allowed = high != bounds.whole_counts.end() && floor <= row.value &&
                      row.value <= high->second;
        } else {
            const auto later = bounds.later_values.find(row.key);
            allowed = (low != bounds.at_lower.end() && low->second == row.value) ||
                      (later != bounds.later_values.end() && later->second.contains(row.value));
        }
        if (allowed) continue;
        const bool behind = low != bounds.at_lower.end() && (!counts || row.value < floor);
        ++(behind ? c.missing : c.beyond);
        note("key " + std::to_string(row.key) + " holds " + std::to_string(row.value) +
             (low == bounds.at_lower.end()
                  ? ", a value the model never gives it"
                  : ", the model's " + std::string(counts ? "count" : "value") + " at " +
                        prefix.lower_name + " being " + std::to_string(floor)));
    }
    for (const auto& [key, value] : bounds.at_lower) {
        if (shown.contains(key)) continue;
        ++c.missing;
        note("key " + std::to_string(key) + " missing (" + std::to_string(value) + " at " +
             prefix.lower_name + ")");
    }
    return c;
}

std::string CommittedPrefixComparison::describe(const std::string& sink,
                                                const CommittedPrefix& prefix,
                                                const char* unit) const {
    std::string text = "sink '" + sink + "': " + std::to_string(committed) + " committed " + unit +
                       ", " + std::to_string(lower_expected) + " to " +
                       std::to_string(upper_expected) + " expected by " + prefix.describe() +
                       " (the input it never read is not judged)";
    if (missing == 0 && beyond == 0) return text;
    return text + "; " + std::to_string(missing) + " missing, " + std::to_string(beyond) +
           " duplicated or beyond what it read; " + first;
}

}  // namespace eosim::oracles
