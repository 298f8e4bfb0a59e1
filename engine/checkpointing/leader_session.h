#pragma once
// A leading JobManager's session in the coordination service, as the HA checkpoint stores use it
// (completed_checkpoint_store.h, checkpoint_id_counter.h): the service, the session and the fence
// every write carries, and the job's folder. The runtime's leader election makes it
// (engine/runtime/leader_election.h); the stores never see the election itself.
#include <string>

#include "sim/external/coordination_service.h"

namespace eosim::engine {

struct LeaderSession {
    sim::external::CoordinationService* service = nullptr;
    sim::external::SessionId session = 0;
    sim::external::Fence fence;
    std::string root;  // the job's folder, ending in '/'

    std::string path(const std::string& leaf) const { return root + leaf; }
};

}  // namespace eosim::engine
