#include "sim/priority_delivery.h"

#include <algorithm>

#include "sim/invariant.h"

namespace eosim::sim {

PriorityDelivery::PriorityDelivery(Prng prng, PriorityDeliveryOptions options)
    : prng_(prng), options_(options) {
    EOSIM_INVARIANT(options_.enabled() && options_.change_point_steps > 0,
                    "PCT ordering made only when enabled, with change points");
    for (uint32_t i = 1; i < options_.depth; ++i) {
        change_points_.push_back(1 + prng_.below(options_.change_point_steps));
    }
    std::sort(change_points_.begin(), change_points_.end());
}

uint64_t PriorityDelivery::position(NodeId from, NodeId to) const {
    const auto it = positions_.find({from, to});
    return it == positions_.end() ? kPositions : it->second;
}

Duration PriorityDelivery::place(NodeId from, NodeId to, Duration min, Duration max,
                                 Duration drawn) {
    ++messages_;
    auto [link, first_message] = positions_.try_emplace({from, to}, 0);
    if (first_message) link->second = prng_.below(kInitialPositions);
    // Change point i (1-based, of d-1) lowers the sending link below every initial priority; the
    // first change point lowest, as in PCT (priority i after the i-th change point).
    while (next_change_ < change_points_.size() && change_points_[next_change_] == messages_) {
        const uint64_t lowered =
            kPositions - 1 - next_change_ * ((kPositions - kInitialPositions) / options_.depth);
        link->second = lowered;
        ++next_change_;
    }
    const int64_t span = max.ns - min.ns;
    if (span <= 0) return min;
    // The band of this position: [min + span * (1 - 1/16) * position / kPositions, + span / 16].
    const int64_t band_span = span - span / kJitterShareInverse;
    const auto band_start = static_cast<int64_t>(static_cast<__int128>(band_span) *
                                                 static_cast<__int128>(link->second) /
                                                 static_cast<__int128>(kPositions));
    const int64_t jitter = (drawn.ns - min.ns) / kJitterShareInverse;
    return Duration::nanos(std::min(max.ns, min.ns + band_start + jitter));
}

}  // namespace eosim::sim
