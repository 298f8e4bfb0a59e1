#pragma once
// A sequence of Kafka records (key, value, timestamp) in compact form: three columns of packed
// integers (sim/packed_ints.h), a few bytes a record (timestamps, nearly in order, take about two).
// Append only, random access; records come back by value. What the input producer keeps of a job's
// input, and what the reference model reads it from.
#include <cstddef>
#include <initializer_list>

#include "sim/external/kafka_record.h"
#include "sim/packed_ints.h"

namespace eosim::sim::external {

class RecordColumns {
public:
    RecordColumns() = default;
    RecordColumns(std::initializer_list<KafkaRecord> records) {
        for (const KafkaRecord& r : records) push_back(r);
    }
    void push_back(const KafkaRecord& record) {
        keys_.push_back(record.key);
        values_.push_back(record.value);
        timestamps_.push_back(record.timestamp);
    }
    KafkaRecord operator[](size_t index) const {
        return KafkaRecord{keys_[index], values_[index], timestamps_[index]};
    }
    size_t size() const { return keys_.size(); }
    bool empty() const { return keys_.empty(); }
    size_t bytes() const { return keys_.bytes() + values_.bytes() + timestamps_.bytes(); }
    // The columns themselves, for readers that walk many records (PackedInts::copy decodes a range
    // at a time).
    const PackedInts& keys() const { return keys_; }
    const PackedInts& values() const { return values_; }
    const PackedInts& timestamps() const { return timestamps_; }

private:
    PackedInts keys_;
    PackedInts values_;
    PackedInts timestamps_;
};

}  // namespace eosim::sim::external
