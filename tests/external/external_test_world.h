#pragma once
// What every test of an outside-system model (sim/external/) starts from: a world whose scheduler
// and network the model runs on, nodes added by name, and a way to move virtual time forward.
// A test's fixture derives from it and adds its system and caller nodes as members.
#include <string>

#include "sim/world.h"

namespace eosim::test {

struct ExternalTestWorld {
    sim::World world{sim::WorldOptions{}};

    sim::NodeId add_node(const std::string& name) { return world.nodes().add(name); }

    // Moves virtual time forward to `at`, running every event due until then.
    void advance_to(sim::Time at) {
        static constexpr sim::EventKind kTick{"test.tick"};
        world.scheduler().schedule_at(at, sim::kNoNode, kTick, 0, [] {});
        world.scheduler().run_until(at);
    }
};

}  // namespace eosim::test
