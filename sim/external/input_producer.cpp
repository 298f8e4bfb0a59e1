#include "sim/external/input_producer.h"

#include <stdexcept>

namespace eosim::sim::external {

namespace {
constexpr EventKind kInputAppend{"input.append"};
}

InputProducer::InputProducer(Scheduler& scheduler, KafkaCluster& kafka, InputProducerSpec spec, Prng prng)
    : scheduler_(scheduler), kafka_(kafka), spec_(std::move(spec)) {
    const int32_t partitions = kafka_.partitions(spec_.topic);
    if (partitions <= 0) throw std::invalid_argument("input topic '" + spec_.topic + "' does not exist");
    partitions_.resize(static_cast<size_t>(partitions));
    arrivals_.reserve(static_cast<size_t>(spec_.records));
    for (int64_t i = 0; i < spec_.records; ++i) {
        const bool hot = spec_.hot_key_percent > 0 && prng.below(100) < static_cast<uint64_t>(spec_.hot_key_percent);
        const int64_t key = hot ? 0 : static_cast<int64_t>(prng.below(static_cast<uint64_t>(spec_.keys)));
        const int64_t value = prng.between(spec_.value_min, spec_.value_max);
        const auto partition = static_cast<int32_t>(key % partitions);
        const Time at{static_cast<int64_t>(static_cast<__int128>(i) * 1'000'000'000 / spec_.rate_per_second)};
        arrivals_.push_back(Arrival{at, partition, KafkaRecord{key, value}});
        partitions_[static_cast<size_t>(partition)].push_back(KafkaRecord{key, value});
    }
}

void InputProducer::start() { append_due(); }

void InputProducer::append_due() {
    const Time now = scheduler_.now();
    while (next_ < arrivals_.size() && arrivals_[next_].at <= now) {
        const Arrival& a = arrivals_[next_];
        if (kafka_.append(kafka_.broker(), spec_.topic, a.partition, a.record) != KafkaError::none) break;  // retried
        ++next_;
    }
    if (done()) return;
    scheduler_.schedule(spec_.batch_interval, kNoNode, kInputAppend, next_, [this] { append_due(); });
}

}  // namespace eosim::sim::external
