#include "tests/testkit/replayed_jobs.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/run_command.h"

namespace eosim::testkit {

namespace {

int64_t& replayed() {
    static int64_t count = 0;
    return count;
}

}  // namespace

JobResult check_sink_in_jobs_and_replay(const JobOptions& options) {
    JobResult result = check_sink_in_jobs(options);
    if (result.passed || result.scenario_file.empty()) return result;
    INFO(result.report);
    CHECK(result.reproducer_replays);
    cli::RunCommand run;
    run.file = result.scenario_file;
    run.seed = result.failing_seed;
    run.json = true;
    run.json_history = "none";
    std::ostringstream out;
    std::ostringstream err;
    const int code = cli::run_command(run, out, err);
    INFO("eosim run " << run.file << " --seed " << run.seed << ": exit " << code << "\n"
                      << err.str());
    REQUIRE(code == cli::kExitNotMet);
    const nlohmann::json record = nlohmann::json::parse(out.str());
    std::vector<std::string> failed;
    for (const auto& verdict : record.at("verdicts")) {
        if (!verdict.at("passed").get<bool>())
            failed.push_back(verdict.at("oracle").get<std::string>());
    }
    CHECK(failed == result.failed_oracles);
    ++replayed();
    return result;
}

int64_t reproducers_replayed() { return replayed(); }

}  // namespace eosim::testkit
