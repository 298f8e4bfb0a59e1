#pragma once
// A process sink's calls to the outside systems (docs/sink-protocol.md, "Calls"): a "call" message
// answered from the simulated systems at the simulated time, as a C++ sink's call through
// SinkContext is -- faults, races and the caller's own node state included. Synchronous: the answer
// is the call's outcome. The asynchronous form ("async": true, docs/sink-protocol.md, "Asynchronous
// calls") applies the same answer_call where its request lands (process_sink.cpp).
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/outside_systems.h"
#include "sim/trace.h"

namespace eosim::engine::process {

// A call eosim cannot make: unknown system or operation, a system the scenario lacks, a missing or
// mistyped argument. The message says what was expected.
class BadCall : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// The systems a call may name, in the protocol's spelling.
const std::vector<std::string>& call_systems();

// The answer ({"type": "result", "ok": ..., ...}) to `call` ({"type": "call", "system": ..., "op":
// ..., arguments}) made by `caller`. Throws BadCall.
nlohmann::json answer_call(const nlohmann::json& call, const OutsideSystems& systems,
                           sim::NodeId caller);

}  // namespace eosim::engine::process
