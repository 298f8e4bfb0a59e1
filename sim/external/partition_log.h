#pragma once
// The log of one Kafka partition in compact form: per offset a record (key, value, timestamp) and
// the transaction it was written in (-1 for a plain append), each kept as a column of packed
// integers (sim/packed_ints.h), so an entry costs a few bytes instead of 24. Append only, random
// access by offset; entries come back by value.
//
// A new per-entry field (a producer id, a sequence number) is a new column here and a new member
// of `Entry`; nothing else in the Kafka model needs to know how entries are stored.
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "sim/external/kafka_record.h"
#include "sim/packed_ints.h"

namespace eosim::sim::external {

class PartitionLog {
public:
    struct Entry {
        KafkaRecord record;
        int64_t transaction;
    };

    void push_back(const Entry& entry) {
        keys_.push_back(entry.record.key);
        values_.push_back(entry.record.value);
        timestamps_.push_back(entry.record.timestamp);
        transactions_.push_back(entry.transaction);
    }
    Entry operator[](size_t offset) const {
        return Entry{KafkaRecord{keys_[offset], values_[offset], timestamps_[offset]},
                     transactions_[offset]};
    }
    size_t size() const { return keys_.size(); }
    bool empty() const { return keys_.empty(); }
    size_t bytes() const {
        return keys_.bytes() + values_.bytes() + timestamps_.bytes() + transactions_.bytes();
    }
    // The columns themselves, for readers that walk many entries (PackedInts::copy decodes a range
    // at a time).
    const PackedInts& keys() const { return keys_; }
    const PackedInts& values() const { return values_; }
    const PackedInts& transactions() const { return transactions_; }

    class Iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Entry;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Entry;
        Iterator(const PartitionLog* log, size_t offset) : log_(log), offset_(offset) {}
        Entry operator*() const { return (*log_)[offset_]; }
        Iterator& operator++() {
            ++offset_;
            return *this;
        }
        bool operator==(const Iterator& other) const { return offset_ == other.offset_; }

    private:
        const PartitionLog* log_;
        size_t offset_;
    };
    Iterator begin() const { return Iterator(this, 0); }
    Iterator end() const { return Iterator(this, size()); }

private:
    PackedInts keys_;
    PackedInts values_;
    PackedInts timestamps_;
    PackedInts transactions_;
};

}  // namespace eosim::sim::external
