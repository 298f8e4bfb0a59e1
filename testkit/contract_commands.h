#pragma once
// private: the contract property's state machine for rapidcheck (rc::state): the model the command
// generator relies on (ModelData: the commands to draw and their weights, made by sink_contract.cpp
// from the options) and the commands themselves -- writes, pre-commits, completions, crashes,
// cancels and zombies, stops with a savepoint, outside faults, races, call steps, time passing --
// each running one step of the harness (contract_harness.h) and checking after it.
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "testkit/contract_harness.h"

namespace eosim::testkit {

// The model of rc::state: what the command generator may rely on -- the commands to draw and
// their weights. Everything that depends on the sink's answers (which checkpoints pre-committed,
// whether an instance failed) lives in the harness, so every command is valid in every state and
// a shrunk sequence stays runnable.
struct ModelData {
    int keys = 4;
    int32_t parallelism =
        1;  // the most subtasks an incarnation runs (ContractOptions::parallelism)
    std::map<std::string, int> weights;     // engine fault kinds -> weight (crash, zombie, ...)
    std::vector<FaultChoice> faults;        // outside-system faults (but races)
    std::vector<int> fault_weights;         // per entry of `faults`
    std::vector<std::string> race_systems;  // systems whose writes race (system_call_races)
    std::vector<std::string> points;        // crash_at_point targets
    bool async_calls =
        false;  // the sink calls asynchronously (ContractOptions::async_calls, or the probe)
    int weight(const std::string& kind) const {
        auto it = weights.find(kind);
        return it == weights.end() ? 0 : it->second;
    }
};

inline constexpr const char* kCallRaces = "system_call_races";

// rapidcheck copies the model at every step of generation and shrinking: it shares its data.
struct ContractModel {
    std::shared_ptr<const ModelData> data = std::make_shared<const ModelData>();
    const ModelData* operator->() const { return data.get(); }
};

using ContractCommand = rc::state::Command<ContractModel, ContractHarness>;

// The next command: drawn by weight (a command of weight 0 is never drawn).
rc::Gen<std::shared_ptr<const ContractCommand>> next_command(const ContractModel& model);

// The fault kind a drawn command exercises, by the name the options and the fault-path report
// use ("crash", "zombie", "notification_lost", an outside kind, ...); "" for a command that is no
// fault.
std::string drawn_fault_kind(const ContractCommand& command);

// Checks what the outside system shows now; fails the rapidcheck case with the harness's log when
// the sink broke its contract.
void check_now(ContractHarness& harness);

}  // namespace eosim::testkit
