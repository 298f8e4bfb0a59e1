#include <stdexcept>

#include "engine/state/blob_codec.h"
#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {

KeyGroupRange KeyGroupRange::of_subtask(int32_t subtask, int32_t parallelism, int32_t max_parallelism) {
    // The inverse of subtask_for_key_group: the key groups kg with kg * P / M == subtask.
    const int64_t m = max_parallelism;
    const int64_t p = parallelism;
    const auto first = static_cast<int32_t>((subtask * m + p - 1) / p);
    const auto last = static_cast<int32_t>(((subtask + 1) * m + p - 1) / p - 1);
    return KeyGroupRange{first, last};
}

namespace {

// One ordered map per key group: snapshots are written and restored key group by key group.
class HeapStateBackend final : public KeyedStateBackend {
public:
    HeapStateBackend(KeyGroupRange range, int32_t max_parallelism)
        : range_(range), max_parallelism_(max_parallelism), groups_(static_cast<size_t>(range.last - range.first + 1)) {}

    std::optional<int64_t> get(int64_t key) const override {
        const auto& group = groups_[index_of(key)];
        auto it = group.find(key);
        if (it == group.end()) return std::nullopt;
        return it->second;
    }

    void put(int64_t key, int64_t value) override { groups_[index_of(key)][key] = value; }
    void remove(int64_t key) override { groups_[index_of(key)].erase(key); }

    std::string snapshot() const override {
        BlobWriter out;
        for (size_t i = 0; i < groups_.size(); ++i) {
            if (groups_[i].empty()) continue;
            out.put_i64(range_.first + static_cast<int64_t>(i));
            out.put_i64(static_cast<int64_t>(groups_[i].size()));
            for (const auto& [key, value] : groups_[i]) {
                out.put_i64(key);
                out.put_i64(value);
            }
        }
        return out.take();
    }

    void restore(const std::vector<std::string>& snapshots) override {
        for (auto& group : groups_) group.clear();
        for (const std::string& blob : snapshots) {
            BlobReader in(blob);
            while (!in.done()) {
                const auto key_group = static_cast<int32_t>(in.get_i64());
                const int64_t entries = in.get_i64();
                for (int64_t e = 0; e < entries; ++e) {
                    const int64_t key = in.get_i64();
                    const int64_t value = in.get_i64();
                    if (range_.contains(key_group)) groups_[static_cast<size_t>(key_group - range_.first)][key] = value;
                }
            }
        }
    }

    // The heap backend's checkpoint form is the canonical form itself.
    std::string canonical_snapshot() const override { return snapshot(); }
    void restore_canonical(const std::vector<std::string>& snapshots) override { restore(snapshots); }

    std::map<int64_t, int64_t> contents() const override {
        std::map<int64_t, int64_t> all;
        for (const auto& group : groups_) all.insert(group.begin(), group.end());
        return all;
    }

private:
    size_t index_of(int64_t key) const {
        const int32_t key_group = key_group_of(key, max_parallelism_);
        if (!range_.contains(key_group)) throw std::logic_error("key routed to a subtask that does not own its key group");
        return static_cast<size_t>(key_group - range_.first);
    }

    KeyGroupRange range_;
    int32_t max_parallelism_;
    std::vector<std::map<int64_t, int64_t>> groups_;
};

}  // namespace

std::unique_ptr<KeyedStateBackend> make_heap_state_backend(KeyGroupRange range, int32_t max_parallelism) {
    return std::make_unique<HeapStateBackend>(range, max_parallelism);
}

}  // namespace eosim::engine
