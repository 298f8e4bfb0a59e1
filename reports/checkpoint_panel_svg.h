#pragma once
// The checkpoint panel of the HTML report, under a run's timeline, as Flink's checkpoint history
// shows it: one bar per checkpoint at its trigger time, its height the end-to-end duration, its
// colour aligned / unaligned / failed; below, the bytes it persisted (operator state, and channel
// state stacked on top).
#include <string>
#include <vector>

#include "scenarios/checkpoint_stats.h"

namespace eosim::reports {

// An inline <svg> element; "" when there is no checkpoint.
std::string checkpoint_panel_svg(const std::vector<scenarios::CheckpointStats>& checkpoints);

}  // namespace eosim::reports
