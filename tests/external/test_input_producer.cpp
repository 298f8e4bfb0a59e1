// sim::external::InputProducer: the records in the input topic at any instant are exactly those
// that have arrived by the producer's last append round (record i arrives at floor(i * 1e9 / rate)
// ns).
#include <cstdint>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/external/input_producer.h"
#include "sim/external/kafka.h"
#include "tests/external/external_test_world.h"

namespace eosim::sim::external {
namespace {

// How many of `records` records arriving at `rate` a second have arrived by `at`, counted one by
// one.
int64_t arrived_by(int64_t records, int64_t rate, Time at) {
    int64_t count = 0;
    for (int64_t i = 0; i < records; ++i) {
        const auto arrival = static_cast<int64_t>(static_cast<unsigned __int128>(i) *
                                                  1'000'000'000 / static_cast<uint64_t>(rate));
        if (arrival <= at.ns) ++count;
    }
    return count;
}

TEST_CASE("input producer: each append round writes exactly the records arrived by then",
          "[external][input_producer]") {
    rc::prop(
        "for any rate and batch interval, the topic holds the records arrived by the last round",
        [] {
            test::ExternalTestWorld w;
            const NodeId broker = w.add_node("kafka");
            KafkaCluster kafka(w.world.scheduler(), w.world.network(), broker, {});
            kafka.create_topic("input", 3);
            InputProducerSpec spec;
            spec.topic = "input";
            spec.records = *rc::gen::inRange<int64_t>(0, 2000);
            spec.rate_per_second =
                *rc::gen::oneOf(rc::gen::inRange<int64_t>(1, 50),
                                rc::gen::element<int64_t>(7, 999, 1000, 1001, 333'333),
                                rc::gen::inRange<int64_t>(1, 100'000));
            spec.batch_interval = Duration::micros(*rc::gen::inRange<int64_t>(1, 50'000));
            InputProducer producer(w.world.scheduler(), kafka, spec, w.world.prng("input"));
            producer.start();
            for (int round = 0; round < 20 && !producer.done(); ++round) {
                const Time at =
                    Time::zero() + Duration::nanos(*rc::gen::inRange<int64_t>(0, 3'000'000'000));
                if (at < w.world.scheduler().now()) continue;
                w.advance_to(at);
                // Rounds run at 0, interval, 2 * interval, ...: the last one at or before `at`.
                const Time last_round =
                    Time::zero() + spec.batch_interval * (at.ns / spec.batch_interval.ns);
                RC_ASSERT(static_cast<int64_t>(kafka.committed_count("input")) ==
                          arrived_by(spec.records, spec.rate_per_second, last_round));
            }
        });
}

}  // namespace
}  // namespace eosim::sim::external
