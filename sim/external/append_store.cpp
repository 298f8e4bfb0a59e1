#include "sim/external/append_store.h"

#include "sim/invariant.h"

namespace eosim::sim::external {

const char* to_string(AppendStoreError error) {
    switch (error) {
        case AppendStoreError::none: return "none";
        case AppendStoreError::unavailable: return "unavailable";
    }
    return "unknown";
}

AppendStore::AppendStore(Scheduler& scheduler, Network& network, NodeId store_node)
    : scheduler_(scheduler), network_(network), store_node_(store_node) {
    EOSIM_INVARIANT(store_node < scheduler.nodes().size(), "the append store runs on a known node");
}

AppendStoreError AppendStore::reachable(NodeId caller) const {
    const NodeTable& nodes = scheduler_.nodes();
    if (caller >= nodes.size() || !nodes.is_up(caller) || !nodes.is_up(store_node_)) {
        return AppendStoreError::unavailable;
    }
    if (!network_.call_reaches(caller, store_node_)) {
        return AppendStoreError::unavailable;
    }
    if (scheduler_.now() < unavailable_until_) return AppendStoreError::unavailable;
    return AppendStoreError::none;
}

AppendStoreError AppendStore::append(NodeId caller, KafkaRecord record) {
    if (AppendStoreError e = reachable(caller); e != AppendStoreError::none) {
        ++failed_appends_;
        return e;
    }
    records_.push_back(record);
    return AppendStoreError::none;
}

}  // namespace eosim::sim::external
