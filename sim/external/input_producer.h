#pragma once
// An outside producer that writes a job's input into a Kafka topic: `records` records with keys
// uniform in [0, keys) and values uniform in [value_min, value_max], drawn from its own PRNG
// stream, arriving at `rate_per_second`, each with its event timestamp (EventTimeSpec; the
// append time in ms without one, drawing nothing, so the stream is what it was before timestamps).
// A key always goes to partition key mod partitions, so per-key order is the partition's order. The
// whole input is drawn up front and kept per partition in compact form (the reference model reads
// it from here, a few bytes a record), with each record's partition in arrival order (a byte at
// most); appends happen in batches every `batch_interval`: the records come due by then, taken from
// there, in one request of an idempotent producer (sim/external/kafka_producer_client.h) that is
// retried while the broker refuses it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/external/kafka.h"
#include "sim/external/kafka_producer_client.h"
#include "sim/external/record_columns.h"
#include "sim/packed_ints.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

// Event time of the generated records (ms): timestamp = append time - uniform[0, out_of_orderness];
// `late_percent` of the records are further `late_by` behind. Absent: timestamp = append time.
struct EventTimeSpec {
    Duration out_of_orderness = Duration::zero();
    int32_t late_percent = 0;
    Duration late_by = Duration::zero();
};

struct InputProducerSpec {
    std::string topic;
    int64_t records = 1000;
    int64_t keys = 16;
    int64_t rate_per_second = 1000;
    int64_t value_min = 1;
    int64_t value_max = 100;
    int32_t hot_key_percent = 0;  // key skew: this share of the records (in percent) carries key 0
    // Uneven partitions (splits of very different lengths): when set, one weight per partition; a
    // record goes to partition p with probability weight[p] / sum, with a key uniform among the
    // keys of p (key mod partitions == p). Empty: keys uniform, so partitions about even.
    std::vector<int64_t> partition_weights = {};
    Duration batch_interval = Duration::millis(10);
    std::optional<EventTimeSpec> event_time = std::nullopt;
};

class InputProducer {
public:
    InputProducer(Scheduler& scheduler, KafkaCluster& kafka, InputProducerSpec spec, Prng prng);

    void start();
    const InputProducerSpec& spec() const { return spec_; }
    // The records of each partition, in offset order.
    const std::vector<RecordColumns>& partitions() const { return partitions_; }
    bool done() const { return next_ == static_cast<uint64_t>(spec_.records); }

private:
    void append_due();
    // due_ in one request of the idempotent producer (taking its producer id first).
    KafkaError send_due();
    // Record `index` arrives at index / rate.
    Time arrival_time(uint64_t index) const;
    // How many records have arrived by `now` (those with arrival_time <= now).
    uint64_t arrived_by(Time now) const;
    // A key of a partition drawn by partition_weights (every weighted partition has a key: the
    // loader checks).
    int64_t weighted_key(Prng& prng) const;
    // Draws record `index` and its partition from `prng` (records are drawn in arrival order).
    std::pair<int32_t, KafkaRecord> draw(Prng& prng, uint64_t index) const;

    Scheduler& scheduler_;
    KafkaCluster& kafka_;
    InputProducerSpec spec_;
    int32_t partition_count_ = 0;
    std::vector<RecordColumns> partitions_;
    PackedInts arrival_partitions_;  // the partition of each record, in arrival order
    std::vector<size_t> appended_;   // per partition: how many of its records are appended
    // append_due's reads, a window per column: each round reads on where the last one stopped, and
    // a value at a time (PackedInts::operator[], a chunk lookup and a width switch each) would be a
    // visible share of the standard run.
    struct Windows {
        PackedWindow<> keys, values, timestamps;
    };
    std::vector<Windows> windows_;      // per partition
    PackedWindow<256> arrival_window_;  // over arrival_partitions_
    uint64_t next_ = 0;                 // the first record (arrival order) not appended yet
    std::vector<std::pair<int32_t, KafkaRecord>>
        due_;  // append_due's scratch (kept for its capacity)
    KafkaProducerClient
        client_;  // idempotent (Kafka's default): a request sent again is not written twice
    bool client_ready_ = false;
};

}  // namespace eosim::sim::external
