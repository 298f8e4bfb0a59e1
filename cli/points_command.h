#pragma once
// `eosim points [FILE]`: every protocol point (engine/vocabulary/protocol_points.h) with the
// process and component that announce it; given a scenario file, also whether its job can reach
// each one (scenarios/point_reach.h: the loader refuses a fault at a point the job cannot reach).
#include <ostream>
#include <string>

namespace eosim::cli {

struct PointsCommand {
    std::string file;  // "" : the table alone
};

// 0, or 2 for a scenario file the loader refuses.
int points_command(const PointsCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
