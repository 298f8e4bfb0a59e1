// The transaction states' table of valid previous states and the check of every transition.
#include "sim/external/kafka_txn_state.h"

#include "sim/invariant.h"

namespace eosim::sim::external {

namespace {

constexpr uint8_t bit(TxnState state) {
    return static_cast<uint8_t>(1U << static_cast<unsigned>(state));
}

// Each state's valid previous states, as a set of bits (empty has none: a transaction starts
// there).
constexpr uint8_t valid_previous(TxnState to) {
    switch (to) {
        case TxnState::empty: return 0;
        case TxnState::ongoing: return bit(TxnState::empty);
        case TxnState::abortable: return bit(TxnState::empty) | bit(TxnState::ongoing);
        case TxnState::committed: return bit(TxnState::empty) | bit(TxnState::ongoing);
        case TxnState::aborted:
            return bit(TxnState::empty) | bit(TxnState::ongoing) | bit(TxnState::abortable);
    }
    return 0;
}

// What a broken transition says, by target state.
const char* entering(TxnState to) {
    switch (to) {
        case TxnState::empty: return "a Kafka transaction is empty only when it begins";
        case TxnState::ongoing: return "a Kafka transaction becomes ongoing only from empty";
        case TxnState::abortable:
            return "a Kafka transaction becomes abortable only from empty or ongoing";
        case TxnState::committed: return "a Kafka transaction commits only from empty or ongoing";
        case TxnState::aborted:
            return "a Kafka transaction aborts only while open (empty, ongoing or abortable)";
    }
    return "a Kafka transaction enters a known state";
}

}  // namespace

const char* to_string(TxnState state) {
    switch (state) {
        case TxnState::empty: return "empty";
        case TxnState::ongoing: return "ongoing";
        case TxnState::abortable: return "abortable";
        case TxnState::committed: return "committed";
        case TxnState::aborted: return "aborted";
    }
    return "unknown";
}

bool may_enter(TxnState from, TxnState to) { return (valid_previous(to) & bit(from)) != 0; }

void TxnLifecycle::enter(TxnState to) {
    EOSIM_INVARIANT(may_enter(state_, to), entering(to));
    state_ = to;
}

}  // namespace eosim::sim::external
