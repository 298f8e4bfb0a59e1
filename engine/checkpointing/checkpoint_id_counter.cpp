#include "engine/checkpointing/checkpoint_id_counter.h"

#include <algorithm>

namespace eosim::engine {

using sim::external::CoordinationNode;
using sim::external::CoordinationStatus;

CheckpointIdCounter::CheckpointIdCounter(const LeaderSession& session, sim::NodeId node)
    : service_(session.service),
      node_(node),
      session_(session.session),
      fence_(session.fence),
      path_(session.path("checkpoint-id-counter")) {}

void CheckpointIdCounter::get(Value done) const {
    service_->get(
        node_, session_, path_,
        [done = std::move(done)](CoordinationStatus status, const CoordinationNode& node) {
            if (status == CoordinationStatus::no_node) {
                done(true, 0);
            } else {
                done(status == CoordinationStatus::ok,
                     status == CoordinationStatus::ok ? std::stoll(node.value) : 0);
            }
        });
}

void CheckpointIdCounter::increment(Value done, int64_t floor) const {
    const CheckpointIdCounter self = *this;
    service_->get(node_, session_, path_,
                  [self, floor, done = std::move(done)](CoordinationStatus status,
                                                        const CoordinationNode& node) {
                      if (status == CoordinationStatus::no_node) {
                          const int64_t first = floor + 1;
                          self.service_->create(self.node_, self.session_, self.path_,
                                                std::to_string(first), false, self.fence_,
                                                [done, first](CoordinationStatus created, int64_t) {
                                                    done(created == CoordinationStatus::ok, first);
                                                });
                          return;
                      }
                      if (status != CoordinationStatus::ok) {
                          done(false, 0);
                          return;
                      }
                      const int64_t next = std::max<int64_t>(std::stoll(node.value), floor) + 1;
                      self.service_->set(self.node_, self.session_, self.path_,
                                         std::to_string(next), node.version, self.fence_,
                                         [done, next](CoordinationStatus set) {
                                             done(set == CoordinationStatus::ok, next);
                                         });
                  });
}

}  // namespace eosim::engine
