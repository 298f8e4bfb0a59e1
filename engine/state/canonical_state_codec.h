#pragma once
// The canonical (savepoint) form of keyed state, which every backend writes and reads (the layout
// is described in state_backend.h at canonical_snapshot()). A key group holds up to two sections:
//   [key group] [n] n x (key, value)                          state-0/ns-0/item-0 cells, key order
//   [-1 - key group] [n] n x (key, state, ns, item, value)    every other cell, StateKey order
// so a state of only state-0/ns-0/item-0 cells ("plain" cells, the keyed aggregates' values)
// encodes exactly as it did before namespaced cells existed, and old snapshots read unchanged.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/state/blob_codec.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {

// Whether the cell is a key's state-0/ns-0/item-0 cell (what the int64-key API reads and writes).
inline bool is_plain_cell(const StateKey& at) {
    return at.state == 0 && at.ns == 0 && at.item == 0;
}

// Writes one key group's sections; either list may be empty (an empty section is left out).
// `plain`: (key, value) in key order; `namespaced`: (cell, value) in StateKey order.
template <class PlainCells, class NamespacedCells>
void write_canonical_key_group(BlobWriter& out, int32_t key_group, const PlainCells& plain,
                               const NamespacedCells& namespaced) {
    if (!plain.empty()) {
        out.put_i64(key_group);
        out.put_i64(static_cast<int64_t>(plain.size()));
        for (const auto& [key, value] : plain) {
            out.put_i64(key);
            out.put_i64(value);
        }
    }
    if (!namespaced.empty()) {
        out.put_i64(-1 - static_cast<int64_t>(key_group));
        out.put_i64(static_cast<int64_t>(namespaced.size()));
        for (const auto& [at, value] : namespaced) {
            out.put_i64(at.key);
            out.put_i64(at.state);
            out.put_i64(at.ns);
            out.put_i64(at.item);
            out.put_i64(value);
        }
    }
}

// Hands every cell of a canonical snapshot to `visit(key_group, cell, value)`, in blob order.
template <class Visit>
void read_canonical_state(const std::string& blob, const Visit& visit) {
    BlobReader in(blob);
    while (!in.done()) {
        const int64_t section = in.get_i64();
        const int64_t entries = in.get_i64();
        if (section >= 0) {
            const auto key_group = static_cast<int32_t>(section);
            for (int64_t e = 0; e < entries; ++e) {
                StateKey at;
                at.key = in.get_i64();
                const int64_t value = in.get_i64();
                visit(key_group, at, value);
            }
        } else {
            const auto key_group = static_cast<int32_t>(-1 - section);
            for (int64_t e = 0; e < entries; ++e) {
                StateKey at;
                at.key = in.get_i64();
                at.state = static_cast<int32_t>(in.get_i64());
                at.ns = in.get_i64();
                at.item = in.get_i64();
                const int64_t value = in.get_i64();
                visit(key_group, at, value);
            }
        }
    }
}

}  // namespace eosim::engine
