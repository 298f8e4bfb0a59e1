#include "sim/external/input_producer.h"

#include <algorithm>
#include <stdexcept>

namespace eosim::sim::external {

namespace {
constexpr EventKind kInputAppend{"input.append"};
}

InputProducer::InputProducer(Scheduler& scheduler, KafkaCluster& kafka, InputProducerSpec spec,
                             Prng prng)
    : scheduler_(scheduler),
      kafka_(kafka),
      spec_(std::move(spec)),
      client_(kafka, spec_.topic, true) {
    partition_count_ = kafka_.partitions(spec_.topic);
    if (partition_count_ <= 0)
        throw std::invalid_argument("input topic '" + spec_.topic + "' does not exist");
    if (!spec_.partition_weights.empty() &&
        spec_.partition_weights.size() != static_cast<size_t>(partition_count_)) {
        throw std::invalid_argument("input topic '" + spec_.topic +
                                    "': one partition weight per partition expected");
    }
    partitions_.resize(static_cast<size_t>(partition_count_));
    appended_.resize(static_cast<size_t>(partition_count_));
    windows_.resize(static_cast<size_t>(partition_count_));
    for (uint64_t i = 0; i < static_cast<uint64_t>(spec_.records); ++i) {
        const auto [partition, record] = draw(prng, i);
        partitions_[static_cast<size_t>(partition)].push_back(record);
        arrival_partitions_.push_back(partition);
    }
}

Time InputProducer::arrival_time(uint64_t index) const {
    constexpr uint64_t kNanos = 1'000'000'000;
    const auto rate = static_cast<uint64_t>(spec_.rate_per_second);
    // 64-bit arithmetic while index * 1e9 fits (inputs of up to 1.8e10 records): a 128-bit division
    // is a library call, and this runs twice a record.
    if (index <= UINT64_MAX / kNanos) return Time{static_cast<int64_t>(index * kNanos / rate)};
    return Time{static_cast<int64_t>(static_cast<unsigned __int128>(index) * kNanos / rate)};
}

uint64_t InputProducer::arrived_by(Time now) const {
    // Record i has arrived when floor(i * 1e9 / rate) <= now, that is when i * 1e9 < (now + 1) *
    // rate: ceil((now + 1) * rate / 1e9) records in all. One division a batch instead of one a
    // record.
    constexpr unsigned __int128 kNanos = 1'000'000'000;
    const auto rate = static_cast<unsigned __int128>(spec_.rate_per_second);
    const auto arrived =
        ((static_cast<unsigned __int128>(now.ns) + 1) * rate + kNanos - 1) / kNanos;
    return static_cast<uint64_t>(
        std::min<unsigned __int128>(arrived, static_cast<uint64_t>(spec_.records)));
}

std::pair<int32_t, KafkaRecord> InputProducer::draw(Prng& prng, uint64_t index) const {
    const bool hot =
        spec_.hot_key_percent > 0 && prng.below(100) < static_cast<uint64_t>(spec_.hot_key_percent);
    const int64_t key = hot ? 0
                        : spec_.partition_weights.empty()
                            ? static_cast<int64_t>(prng.below(static_cast<uint64_t>(spec_.keys)))
                            : weighted_key(prng);
    const int64_t value = prng.between(spec_.value_min, spec_.value_max);
    const auto partition = static_cast<int32_t>(key % partition_count_);
    int64_t timestamp = arrival_time(index).millis_count();
    if (const auto& e = spec_.event_time) {
        timestamp -= prng.between(0, e->out_of_orderness.millis_count());
        if (e->late_percent > 0 && prng.below(100) < static_cast<uint64_t>(e->late_percent))
            timestamp -= e->late_by.millis_count();
    }
    return {partition, KafkaRecord{key, value, timestamp}};
}

int64_t InputProducer::weighted_key(Prng& prng) const {
    uint64_t total = 0;
    for (int64_t w : spec_.partition_weights) total += static_cast<uint64_t>(w);
    uint64_t pick = prng.below(total);
    int64_t partition = 0;
    while (pick >= static_cast<uint64_t>(spec_.partition_weights[static_cast<size_t>(partition)])) {
        pick -= static_cast<uint64_t>(spec_.partition_weights[static_cast<size_t>(partition)]);
        ++partition;
    }
    // The keys k < keys with k mod partitions == partition: partition, partition + n, ...
    const int64_t count = (spec_.keys - partition + partition_count_ - 1) / partition_count_;
    return partition +
           partition_count_ * static_cast<int64_t>(prng.below(static_cast<uint64_t>(count)));
}

void InputProducer::start() { append_due(); }

KafkaError InputProducer::send_due() {
    if (!client_ready_) {  // the producer id, taken at the first request
        if (KafkaError e = client_.init(kafka_.broker()); e != KafkaError::none) return e;
        client_ready_ = true;
    }
    return client_.send(kafka_.broker(), due_);
}

// The records due by now, in arrival order, in one request: the broker takes all or none (then they
// are retried at the next round).
void InputProducer::append_due() {
    due_.clear();
    const uint64_t end = std::max(next_, arrived_by(scheduler_.now()));
    for (uint64_t index = next_; index < end; ++index) {
        const auto partition =
            static_cast<size_t>(arrival_window_.read(arrival_partitions_, index));
        const RecordColumns& columns = partitions_[partition];
        Windows& w = windows_[partition];
        const size_t at = appended_[partition]++;
        due_.emplace_back(
            static_cast<int32_t>(partition),
            KafkaRecord{w.keys.read(columns.keys(), at), w.values.read(columns.values(), at),
                        w.timestamps.read(columns.timestamps(), at)});
    }
    if (!due_.empty() && send_due() != KafkaError::none) {
        for (const auto& [partition, record] : due_) --appended_[static_cast<size_t>(partition)];
    } else {
        next_ = end;
    }
    if (done()) return;
    scheduler_.schedule(spec_.batch_interval, kNoNode, kInputAppend, next_,
                        [this] { append_due(); });
}

}  // namespace eosim::sim::external
