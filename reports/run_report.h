#pragma once
// Reports of one run (`scenarios::RunResult`): a readable text report for people at a terminal and
// one JSON object for machines. Formatting only: nothing here runs a scenario or decides a verdict.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/history_json.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::reports {

// A trace hash as 16 lowercase hex digits.
std::string hex64(uint64_t value);

// `value` with `decimals` digits after the point ("%.*f"), for the text and HTML reports.
std::string fixed(double value, int decimals);

// "pass" or "violation of <oracle>".
std::string describe_expectation(const scenarios::Expectation& expect);

// The text report: scenario, seed, each oracle's verdict, the expectation and whether it was met,
// the trace hash, the run's figures, the faults that fired, and `reproduce` (the command line).
void write_run_report(std::ostream& out, const scenarios::Scenario& scenario,
                      const scenarios::RunResult& result, const std::string& reproduce);

// The whole RunResult as one JSON object. The trace hash is a hex string (JSON numbers lose
// precision above 2^53); times are integer nanoseconds.
nlohmann::json to_json(const scenarios::RunResult& result);
// The run's figures, one key each (records and run reports share this form).
nlohmann::json to_json(const scenarios::RunFigures& figures);
// Every planned fault's account (scenarios/fault_accounting.h), and back (a record's path in
// errors).
nlohmann::json fault_accounts_to_json(const std::vector<scenarios::FaultAccount>& accounts);
std::vector<scenarios::FaultAccount> fault_accounts_from_json(const nlohmann::json& j);
// "6 planned: 4 fired, 1 without effect, 1 never fired".
std::string describe_fault_tally(const scenarios::FaultTally& tally);
// One account for people: "#5  NEVER FIRED     crash at the 40th sink.precommitted: never fired:
// ...".
std::string describe_fault_account(const scenarios::FaultAccount& account);
// {"pass": true} or {"pass": false, "violation": "<oracle>"}.
nlohmann::json to_json(const scenarios::Expectation& expect);

}  // namespace eosim::reports
