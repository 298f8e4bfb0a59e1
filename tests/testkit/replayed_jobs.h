#pragma once
// check_sink_in_jobs as the test suite calls it: every failure file it writes is then replayed
// through `eosim run`'s own code (cli::run_command with --json, the file and the seed the report
// names) and must give the same verdict: exit code 1 and the same failing oracles. Every job-level
// check of the test suite goes through here, so every reproducer the suite's testkit failures write
// is loaded and replayed. reproducers_replayed() counts them.
#include <cstdint>

#include "testkit/sink_jobs.h"

namespace eosim::testkit {

JobResult check_sink_in_jobs_and_replay(const JobOptions& options);
int64_t reproducers_replayed();

}  // namespace eosim::testkit
