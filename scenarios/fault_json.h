#pragma once
// A `sim::FaultSpec` as the JSON the loader reads (keys in the order a person writes them) (one
// element of `faults.schedule`), so that a drawn or shrunk schedule can be logged and written into
// a standalone scenario file that loads back to the same specs (tested: write, load, compare). Only
// the keys of the fault's kind are written, every one of them explicitly (defaults included), so a
// log line says everything.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fault_plan.h"
#include "sim/time.h"

namespace eosim::scenarios {

// A duration in the loader's form: the largest unit that keeps it exact ("1500ms", "2s", "0ms").
std::string format_duration_exact(sim::Duration d);

nlohmann::ordered_json fault_to_json(const sim::FaultSpec& fault);
nlohmann::ordered_json faults_to_json(const std::vector<sim::FaultSpec>& faults);

// One line for people: the fault's JSON, compact.
std::string describe_fault(const sim::FaultSpec& fault);

}  // namespace eosim::scenarios
