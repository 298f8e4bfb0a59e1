#pragma once
// An outside producer that writes a job's input into a Kafka topic: `records` records with keys
// uniform in [0, keys) and values uniform in [value_min, value_max], drawn from its own PRNG
// stream, arriving at `rate_per_second`. A key always goes to partition key mod partitions, so
// per-key order is the partition's order. The whole input is drawn up front (the reference model
// reads it from here); appends happen in batches every `batch_interval` as records come due, and
// are retried while the broker refuses them.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/external/kafka.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

struct InputProducerSpec {
    std::string topic;
    int64_t records = 1000;
    int64_t keys = 16;
    int64_t rate_per_second = 1000;
    int64_t value_min = 1;
    int64_t value_max = 100;
    int32_t hot_key_percent = 0;  // key skew: this share of the records (in percent) carries key 0
    Duration batch_interval = Duration::millis(10);
};

class InputProducer {
public:
    InputProducer(Scheduler& scheduler, KafkaCluster& kafka, InputProducerSpec spec, Prng prng);

    void start();
    const InputProducerSpec& spec() const { return spec_; }
    // The records of each partition, in offset order.
    const std::vector<std::vector<KafkaRecord>>& partitions() const { return partitions_; }
    bool done() const { return next_ == arrivals_.size(); }

private:
    struct Arrival {
        Time at;
        int32_t partition;
        KafkaRecord record;
    };
    void append_due();

    Scheduler& scheduler_;
    KafkaCluster& kafka_;
    InputProducerSpec spec_;
    std::vector<Arrival> arrivals_;
    std::vector<std::vector<KafkaRecord>> partitions_;
    size_t next_ = 0;
};

}  // namespace eosim::sim::external
