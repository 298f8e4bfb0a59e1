#pragma once
// An upgrade swarm (a scenario's "upgrade_swarm"): the later deployments are drawn per seed instead
// of listed, as `faults.random` draws faults -- when each starts, what it starts from (the previous
// deployment's final savepoint, a rollback to an older deployment's, or the previous one cancelled
// and its newest retained checkpoint), the parallelism of every vertex but the sinks, and the state
// backend. The loader reads the section and puts one placeholder deployment per window into
// `Scenario::deployments` (so node names like "tm0.v3" resolve and every check runs); the runner
// replaces them with the seed's draw (draw_upgrades) before it builds anything.
//
// Every draw comes from the PRNG stream "upgrades" of the run's seed, in a fixed order. What a draw
// never gives (the configurations Flink refuses or eosim cannot restore): a rollback to a
// deployment that was cancelled (it left no final savepoint), and a backend other than incremental
// RocksDB starting from an incremental RocksDB checkpoint (its native files; savepoints and full
// snapshots are canonical and restore into any backend).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/vocabulary/state_backend_options.h"
#include "scenarios/random_faults.h"
#include "sim/prng.h"

namespace eosim::scenarios {

struct UpgradeSwarm {
    std::vector<DurationRange>
        windows;  // per later deployment, in order: when it starts (uniform, ms steps)
    int32_t parallelism_min = 1;  // every vertex but the sinks, uniform in [min, max]
    int32_t parallelism_max = 1;
    std::vector<engine::StateBackendOptions> backends;  // one drawn per deployment
    sim::Ratio rollback = sim::Ratio{1, 4};  // from an older deployment's final savepoint
    sim::Ratio latest_checkpoint =
        sim::Ratio{1, 4};  // the previous deployment cancelled, its latest checkpoint
};

struct Scenario;
// `scenario` with its placeholder deployments replaced by the draw for `seed`.
Scenario draw_upgrades(const Scenario& scenario, uint64_t seed);
// One line per drawn deployment ("v2 at 3.214s from savepoint after v1, parallelism 5, rocksdb
// incremental"), for the run's log.
std::vector<std::string> describe_deployments(const Scenario& scenario);

}  // namespace eosim::scenarios
