// libFuzzer target over the scenario loader: any bytes must load or give a ScenarioError (the
// `exit 2` of `eosim run`); anything else -- a crash, another exception, a sanitizer report, a
// hang, memory exhaustion -- is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenarios/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)eosim::scenarios::load_scenario_text(text, "fuzz.json");
    } catch (const eosim::scenarios::ScenarioError&) {
        // the clear error a user gets: fine
    }
    return 0;
}
