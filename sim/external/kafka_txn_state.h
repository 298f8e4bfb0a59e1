#pragma once
// A Kafka transaction's life on the broker: its states, the states each may be entered from, and
// one verb per transition, every transition checked (sim/invariant.h), after Kafka's
// TransactionState with its validPreviousStates.
//
//   state      what it means                                           entered from
//   empty      begun, no record yet (begin is client-side: no timer)   (where a transaction starts)
//   ongoing    holds records; the broker's timeout runs from the first empty
//   abortable  a send failed: only abort is allowed, and it bumps      empty, ongoing
//              the epoch (KIP-360)
//   committed  its records are visible to read_committed readers       empty, ongoing
//   aborted    by its producer, a newer init, or the broker at its     empty, ongoing, abortable
//              timeout; read_committed readers skip its records
//
// Abortable is the client's ABORTABLE_ERROR in Kafka (its TransactionManager), not a coordinator
// state: the model answers for client and coordinator in one place, so a failed send's effect is
// kept with the transaction. Not modelled: PrepareCommit and PrepareAbort (EndTxn is applied at
// once), PrepareEpochFence (the timeout's epoch bump is applied with its abort), Dead.
#include <cstdint>

namespace eosim::sim::external {

enum class TxnState : uint8_t { empty, ongoing, abortable, committed, aborted };
const char* to_string(TxnState state);

// Still open: neither committed nor aborted. An open transaction with records holds the last stable
// offset of each partition it wrote to.
constexpr bool is_open(TxnState state) {
    return state != TxnState::committed && state != TxnState::aborted;
}

// Whether a transaction in state `from` may enter state `to` (the table above).
bool may_enter(TxnState from, TxnState to);

// One transaction's state, changed only by its verbs; each checks that the transaction is in one of
// the target's valid previous states (a broken check stops the run: a slip in the broker model).
class TxnLifecycle {
public:
    TxnState state() const { return state_; }
    // Kafka's AddPartitionsToTxn, the first records written: empty -> ongoing.
    void add_first_records() { enter(TxnState::ongoing); }
    // A send failed (a write failure, a sequence gap, an old epoch): -> abortable.
    void fail_send() { enter(TxnState::abortable); }
    void commit() { enter(TxnState::committed); }
    void abort() { enter(TxnState::aborted); }

private:
    void enter(TxnState to);

    TxnState state_ = TxnState::empty;
};

}  // namespace eosim::sim::external
