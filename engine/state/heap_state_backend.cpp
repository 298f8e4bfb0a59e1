#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "engine/state/blob_codec.h"
#include "engine/state/canonical_state_codec.h"
#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {

KeyGroupRange KeyGroupRange::of_subtask(int32_t subtask, int32_t parallelism,
                                        int32_t max_parallelism) {
    // The inverse of subtask_for_key_group: the key groups kg with kg * P / M == subtask.
    const int64_t m = max_parallelism;
    const int64_t p = parallelism;
    const auto first = static_cast<int32_t>((subtask * m + p - 1) / p);
    const auto last = static_cast<int32_t>(((subtask + 1) * m + p - 1) / p - 1);
    return KeyGroupRange{first, last};
}

namespace {

// One key group's cells: the state-0/ns-0/item-0 cells (the keyed aggregates' values, the hot
// path) in a map by key, every other cell in a map by StateKey.
struct HeapKeyGroup {
    std::map<int64_t, int64_t> plain;
    std::map<StateKey, int64_t> namespaced;
    bool empty() const { return plain.empty() && namespaced.empty(); }
};

using CellVisitor = std::function<void(const StateKey&, int64_t)>;

// Hands the cells of `state` in `group` to `visit` in (key, ns, item) order: for state 0, the plain
// cells (ns 0, item 0) merged into the namespaced ones.
void visit_state_in_group(const HeapKeyGroup& group, int32_t state, const CellVisitor& visit) {
    auto next = group.namespaced.begin();
    auto skip_other_states = [&] {
        while (next != group.namespaced.end() && next->first.state != state) ++next;
    };
    skip_other_states();
    if (state == 0) {
        for (const auto& [key, value] : group.plain) {
            const StateKey plain{key, 0, 0, 0};
            while (next != group.namespaced.end() && next->first < plain) {
                visit(next->first, next->second);
                ++next;
                skip_other_states();
            }
            visit(plain, value);
        }
    }
    for (; next != group.namespaced.end(); ++next) {
        if (next->first.state == state) visit(next->first, next->second);
    }
}

class HeapStateBackend final : public KeyedStateBackend {
public:
    HeapStateBackend(KeyGroupRange range, int32_t max_parallelism)
        : range_(range),
          max_parallelism_(max_parallelism),
          groups_(static_cast<size_t>(range.last - range.first + 1)) {}

    std::optional<int64_t> get(int64_t key) const override {
        const auto& plain = groups_[index_of(key)].plain;
        auto it = plain.find(key);
        if (it == plain.end()) return std::nullopt;
        return it->second;
    }

    void put(int64_t key, int64_t value) override { groups_[index_of(key)].plain[key] = value; }
    int64_t add(int64_t key, int64_t delta) override {
        int64_t& value = groups_[index_of(key)].plain.try_emplace(key, 0).first->second;
        value += delta;
        return value;
    }
    void remove(int64_t key) override { groups_[index_of(key)].plain.erase(key); }

    std::optional<int64_t> get(const StateKey& at) const override {
        if (is_plain_cell(at)) return get(at.key);
        const auto& namespaced = groups_[index_of(at.key)].namespaced;
        auto it = namespaced.find(at);
        if (it == namespaced.end()) return std::nullopt;
        return it->second;
    }

    void put(const StateKey& at, int64_t value) override {
        if (is_plain_cell(at)) return put(at.key, value);
        groups_[index_of(at.key)].namespaced[at] = value;
    }

    void remove(const StateKey& at) override {
        if (is_plain_cell(at)) return remove(at.key);
        groups_[index_of(at.key)].namespaced.erase(at);
    }

    void scan(int64_t key, int32_t state, const CellVisitor& visit) const override {
        const HeapKeyGroup& group = groups_[index_of(key)];
        std::optional<int64_t> plain;
        if (state == 0) {
            if (auto it = group.plain.find(key); it != group.plain.end()) plain = it->second;
        }
        const StateKey plain_at{key, 0, 0, 0};
        auto it = group.namespaced.lower_bound(StateKey{key, state, INT64_MIN, INT64_MIN});
        for (; it != group.namespaced.end() && it->first.key == key && it->first.state == state;
             ++it) {
            if (plain && plain_at < it->first) {
                visit(plain_at, *plain);
                plain.reset();
            }
            visit(it->first, it->second);
        }
        if (plain) visit(plain_at, *plain);
    }

    void scan_state(int32_t state, const CellVisitor& visit) const override {
        for (const HeapKeyGroup& group : groups_) visit_state_in_group(group, state, visit);
    }

    std::map<StateKey, int64_t> cells() const override {
        std::map<StateKey, int64_t> all;
        for (const HeapKeyGroup& group : groups_) {
            for (const auto& [key, value] : group.plain) all.emplace(StateKey{key, 0, 0, 0}, value);
            all.insert(group.namespaced.begin(), group.namespaced.end());
        }
        return all;
    }

    std::string snapshot() const override {
        BlobWriter out;
        for (size_t i = 0; i < groups_.size(); ++i) {
            write_canonical_key_group(out, range_.first + static_cast<int32_t>(i), groups_[i].plain,
                                      groups_[i].namespaced);
        }
        return out.take();
    }

    void restore(const std::vector<std::string>& snapshots) override {
        for (auto& group : groups_) group = HeapKeyGroup{};
        for (const std::string& blob : snapshots) {
            read_canonical_state(
                blob, [this](int32_t key_group, const StateKey& at, int64_t value) {
                    if (!range_.contains(key_group)) return;
                    HeapKeyGroup& group = groups_[static_cast<size_t>(key_group - range_.first)];
                    if (is_plain_cell(at)) {
                        group.plain[at.key] = value;
                    } else {
                        group.namespaced[at] = value;
                    }
                });
        }
    }

    // The heap backend's checkpoint form is the canonical form itself.
    std::string canonical_snapshot() const override { return snapshot(); }
    void restore_canonical(const std::vector<std::string>& snapshots) override {
        restore(snapshots);
    }

    std::map<int64_t, int64_t> contents() const override {
        std::map<int64_t, int64_t> all;
        for (const HeapKeyGroup& group : groups_)
            all.insert(group.plain.begin(), group.plain.end());
        return all;
    }

private:
    size_t index_of(int64_t key) const {
        const int32_t key_group = key_group_of(key, max_parallelism_);
        if (!range_.contains(key_group))
            throw std::logic_error("key routed to a subtask that does not own its key group");
        return static_cast<size_t>(key_group - range_.first);
    }

    KeyGroupRange range_;
    int32_t max_parallelism_;
    std::vector<HeapKeyGroup> groups_;
};

}  // namespace

std::unique_ptr<KeyedStateBackend> make_heap_state_backend(KeyGroupRange range,
                                                           int32_t max_parallelism) {
    return std::make_unique<HeapStateBackend>(range, max_parallelism);
}

}  // namespace eosim::engine
