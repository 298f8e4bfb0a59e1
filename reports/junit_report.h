#pragma once
// A suite's runs as JUnit XML, the format CI systems (Jenkins, GitLab, GitHub test reporters)
// read: one <testsuite> per scenario, one <testcase> per scenario x seed. A run that did not meet
// its expectation is a <failure> whose message is the reason (for a violation, the oracle's
// message) and whose text adds the verdicts, the faults that fired and the command that
// reproduces the run; a run that did not complete (crash, hang, out of memory) is an <error> with
// the reason and the end of the worker's standard error. All text is escaped and made valid
// UTF-8, so the file is well-formed whatever the messages contain.
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_record.h"
#include "reports/suite_summary.h"

namespace eosim::reports {

// `records` in the order they are to appear (sorted by scenario, then seed, by the caller). With
// `summary`, a scenario that expects coverage combinations "sometimes" gets one more testcase,
// "sometimes", failing when one never happened.
void write_junit(std::ostream& out, const std::string& suite_name,
                 const std::vector<RunRecord>& records, const SuiteSummary* summary = nullptr);

}  // namespace eosim::reports
