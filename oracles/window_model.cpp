#include "oracles/window_model.h"

#include <algorithm>

namespace eosim::oracles {

bool SplitWatermark::next(int64_t timestamp) {
    bool in_bound = true;
    if (bound_ms_ && max_timestamp_) in_bound = timestamp > *max_timestamp_ - *bound_ms_ - 1;
    max_timestamp_ = max_timestamp_ ? std::max(*max_timestamp_, timestamp) : timestamp;
    return in_bound;
}

void WindowModel::add(const engine::Record& in, bool in_bound) {
    ++records_;
    if (!spec_.is_time_window()) {
        if (auto result = engine::add_to_count_window(spec_, counting_[in.key], in))
            count_results_.push_back(*result);
        return;
    }
    if (!in_bound) out_of_bound_.push_back(in);
    for (const engine::TimeWindow& w : engine::assign_windows(spec_, in.timestamp)) {
        WindowTotals& totals = windows_[WindowId{in.key, w.end}];
        totals.aggregate = engine::fold_window(
            spec_.aggregate, totals.records == 0 ? std::nullopt : std::optional(totals.aggregate),
            in);
        if (in_bound) {
            const bool first = totals.records == totals.out_of_bound_records;
            totals.in_bound_aggregate = engine::fold_window(
                spec_.aggregate, first ? std::nullopt : std::optional(totals.in_bound_aggregate),
                in);
        } else {
            ++totals.out_of_bound_records;
        }
        ++totals.records;
        if (in.value <= 0) totals.all_values_positive = false;
    }
}

void WindowModel::emit_results(const RecordMultiset::Visit& visit) const {
    if (!spec_.is_time_window()) {
        for (const engine::Record& r : count_results_) visit(r);
        return;
    }
    for (const auto& [id, totals] : windows_) {
        visit(engine::window_result(id.key, engine::window_ending_at(spec_, id.end),
                                    totals.aggregate));
    }
}

}  // namespace eosim::oracles
