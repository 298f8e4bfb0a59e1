#include "engine/checkpointing/checkpoint_id_counter.h"

#include "engine/runtime/leader_election.h"

namespace eosim::engine {

using sim::external::CoordinationNode;
using sim::external::CoordinationStatus;

CheckpointIdCounter::CheckpointIdCounter(LeaderElection& election, sim::NodeId node)
    : service_(&election.service()), node_(node), session_(election.session()), fence_(election.fence()),
      path_(election.path("checkpoint-id-counter")) {}

void CheckpointIdCounter::get(Value done) const {
    service_->get(node_, session_, path_, [done = std::move(done)](CoordinationStatus status, const CoordinationNode& node) {
        if (status == CoordinationStatus::no_node) {
            done(true, 0);
        } else {
            done(status == CoordinationStatus::ok, status == CoordinationStatus::ok ? std::stoll(node.value) : 0);
        }
    });
}

void CheckpointIdCounter::increment(Value done) const {
    const CheckpointIdCounter self = *this;
    service_->get(node_, session_, path_, [self, done = std::move(done)](CoordinationStatus status, const CoordinationNode& node) {
        if (status == CoordinationStatus::no_node) {
            self.service_->create(self.node_, self.session_, self.path_, "1", false, self.fence_,
                                  [done](CoordinationStatus created, int64_t) { done(created == CoordinationStatus::ok, 1); });
            return;
        }
        if (status != CoordinationStatus::ok) {
            done(false, 0);
            return;
        }
        const int64_t next = std::stoll(node.value) + 1;
        self.service_->set(self.node_, self.session_, self.path_, std::to_string(next), node.version, self.fence_,
                           [done, next](CoordinationStatus set) { done(set == CoordinationStatus::ok, next); });
    });
}

}  // namespace eosim::engine
