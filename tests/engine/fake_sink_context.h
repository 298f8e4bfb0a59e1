#pragma once
// A SinkContext for driving a sink or a source reader by hand, without an engine: the world and
// node it runs on, its subtask index, an observer that keeps nothing, no timers (after() drops
// the callback: tests advance the world themselves), and the failures reported, in order.
#include <functional>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "sim/world.h"

namespace eosim::engine {

class FakeSinkContext final : public SinkContext {
public:
    FakeSinkContext(sim::World& world, sim::NodeId node, int32_t subtask = 0,
                    int32_t parallelism = 0)
        : world_(world),
          node_(node),
          subtask_(subtask),
          parallelism_(parallelism > 0 ? parallelism : subtask + 1) {}
    sim::World& world() override { return world_; }
    sim::NodeId node() const override { return node_; }
    int32_t subtask() const override { return subtask_; }
    int32_t parallelism() const override { return parallelism_; }
    int64_t attempt() const override { return 1; }
    RunObserver& observer() override { return observer_; }
    void after(sim::Duration, std::function<void()>) override {}
    void fail(const std::string& reason) override { failures.push_back(reason); }
    std::vector<std::string> failures;

private:
    sim::World& world_;
    sim::NodeId node_;
    int32_t subtask_;
    int32_t parallelism_;  // default: subtask + 1
    RunObserver observer_;
};

}  // namespace eosim::engine
