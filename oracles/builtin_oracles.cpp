#include "oracles/oracle_registry.h"

namespace eosim::oracles {

// Each built-in oracle's registration, defined in its own file.
OracleRegistration exactly_once_output_registration();   // exactly_once_output_oracle.cpp
OracleRegistration at_least_once_output_registration();  // at_least_once_output_oracle.cpp
OracleRegistration state_after_restore_registration();   // state_after_restore_oracle.cpp
OracleRegistration visibility_registration();            // visibility_oracle.cpp
OracleRegistration liveness_registration();              // liveness_oracle.cpp
OracleRegistration no_key_backwards_registration();      // no_key_backwards_oracle.cpp
OracleRegistration mirror_registration();                // mirror_oracle.cpp
OracleRegistration freshness_registration();             // freshness_oracle.cpp
OracleRegistration storage_registration();               // storage_oracle.cpp
OracleRegistration verification_output_registration();   // verification_output_oracle.cpp
OracleRegistration window_output_registration();         // window_oracle.cpp
OracleRegistration stop_with_savepoint_registration();   // stop_with_savepoint_oracle.cpp
OracleRegistration no_leaks_registration();              // no_leaks_oracle.cpp
OracleRegistration no_rollbacks_registration();          // no_rollbacks_oracle.cpp
OracleRegistration checkpoint_history_registration();    // checkpoint_history_oracle.cpp
OracleRegistration start_delay_registration();           // start_delay_oracle.cpp
OracleRegistration
finished_after_final_checkpoint_registration();  // finished_after_final_checkpoint_oracle.cpp

// In the order listings and error messages name them. A new oracle: its files, its declaration
// above and one line here (and its name in scenarios/schema.json's oracle list, which
// tests/cli/test_scenario_schema.cpp holds against this registry).
void register_builtin_oracles(OracleRegistry& registry) {
    registry.add(exactly_once_output_registration());
    registry.add(at_least_once_output_registration());
    registry.add(state_after_restore_registration());
    registry.add(visibility_registration());
    registry.add(liveness_registration());
    registry.add(no_key_backwards_registration());
    registry.add(mirror_registration());
    registry.add(freshness_registration());
    registry.add(storage_registration());
    registry.add(verification_output_registration());
    registry.add(window_output_registration());
    registry.add(stop_with_savepoint_registration());
    registry.add(no_leaks_registration());
    registry.add(no_rollbacks_registration());
    registry.add(checkpoint_history_registration());
    registry.add(start_delay_registration());
    registry.add(finished_after_final_checkpoint_registration());
}

}  // namespace eosim::oracles
