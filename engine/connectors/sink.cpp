#include "engine/connectors/sink.h"

#include <algorithm>
#include <stdexcept>

#include "engine/connectors/sink_points.h"

namespace eosim::engine {

namespace {

bool is_sink_point(std::string_view point) {
    return std::find(std::begin(sink_points::kAll), std::end(sink_points::kAll), point) !=
           std::end(sink_points::kAll);
}

}  // namespace

void SinkContext::announce(std::string_view point, int64_t detail) {
    if (is_sink_point(point)) {
        if (const auto declared = declared_points();
            declared && std::find(declared->begin(), declared->end(), point) == declared->end()) {
            std::string listed;
            for (std::string_view p : *declared)
                listed += (listed.empty() ? "" : ", ") + std::string(p);
            throw std::logic_error(
                "the sink announced " + std::string(point) +
                ", which its SinkConfig::announced_points() does not list (" +
                (listed.empty() ? std::string("it lists none") : "it lists " + listed) +
                "): declare every point the sink announces there, or the scenario loader refuses a fault "
                "placed at it (engine/connectors/sink_points.h)");
        }
    }
    world().announce(point, node(), detail, {vertex_id(), subtask()});
}

}  // namespace eosim::engine
