#include "cli/sensitivity_command.h"

#include <algorithm>

#include "cli/cpu_share.h"
#include "cli/exit_codes.h"
#include "cli/files.h"
#include "cli/run_values.h"
#include "cli/sensitivity_check.h"

namespace eosim::cli {

int sensitivity_command(const SensitivityCommand& command, std::ostream& out, std::ostream& err) {
    SuitePlan plan;
    reports::SensitivityTable table;
    double timeout = 0;
    try {
        plan = load_suite_plan(command.path, command.seeds);
        table = plan_sensitivity(plan);
        timeout = parse_duration_seconds(command.timeout);
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    const std::string program =
        command.self_program.empty() ? "/proc/self/exe" : command.self_program;
    const WorkerCount workers = default_workers(command.jobs);
    err << "sensitivity: " << describe(workers) << '\n';
    run_sensitivity(table, plan, InProcessWorker{program, command.self_entry},
                    static_cast<unsigned>(workers.workers), timeout);
    reports::write_sensitivity_text(out, table);
    if (!command.json_path.empty()) {
        const std::string problem =
            write_file_atomically(command.json_path, reports::to_json(table).dump(2) + "\n");
        if (!problem.empty()) {
            err << "error: " << problem << '\n';
            return kExitBadInput;
        }
    }
    return table.blind() == 0 ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
