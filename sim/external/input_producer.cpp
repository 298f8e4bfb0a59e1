#include "sim/external/input_producer.h"

#include <stdexcept>

namespace eosim::sim::external {

namespace {
constexpr EventKind kInputAppend{"input.append"};
}

InputProducer::InputProducer(Scheduler& scheduler, KafkaCluster& kafka, InputProducerSpec spec, Prng prng)
    : scheduler_(scheduler), kafka_(kafka), spec_(std::move(spec)), arrivals_prng_(prng) {
    partition_count_ = kafka_.partitions(spec_.topic);
    if (partition_count_ <= 0) throw std::invalid_argument("input topic '" + spec_.topic + "' does not exist");
    partitions_.resize(static_cast<size_t>(partition_count_));
    for (uint64_t i = 0; i < static_cast<uint64_t>(spec_.records); ++i) {
        const Arrival a = draw(prng, i);
        partitions_[static_cast<size_t>(a.partition)].push_back(a.record);
    }
}

InputProducer::Arrival InputProducer::draw(Prng& prng, uint64_t index) const {
    const bool hot = spec_.hot_key_percent > 0 && prng.below(100) < static_cast<uint64_t>(spec_.hot_key_percent);
    const int64_t key = hot ? 0 : static_cast<int64_t>(prng.below(static_cast<uint64_t>(spec_.keys)));
    const int64_t value = prng.between(spec_.value_min, spec_.value_max);
    const auto partition = static_cast<int32_t>(key % partition_count_);
    const Time at{static_cast<int64_t>(static_cast<__int128>(index) * 1'000'000'000 / spec_.rate_per_second)};
    int64_t timestamp = at.millis_count();
    if (const auto& e = spec_.event_time) {
        timestamp -= prng.between(0, e->out_of_orderness.millis_count());
        if (e->late_percent > 0 && prng.below(100) < static_cast<uint64_t>(e->late_percent)) timestamp -= e->late_by.millis_count();
    }
    return Arrival{at, partition, KafkaRecord{key, value, timestamp}};
}

void InputProducer::start() { append_due(); }

void InputProducer::append_due() {
    const Time now = scheduler_.now();
    while (!done()) {
        if (!next_arrival_) next_arrival_ = draw(arrivals_prng_, next_);
        const Arrival& a = *next_arrival_;
        if (a.at > now) break;
        if (kafka_.append(kafka_.broker(), spec_.topic, a.partition, a.record) != KafkaError::none) break;  // retried
        next_arrival_.reset();
        ++next_;
    }
    if (done()) return;
    scheduler_.schedule(spec_.batch_interval, kNoNode, kInputAppend, next_, [this] { append_due(); });
}

}  // namespace eosim::sim::external
