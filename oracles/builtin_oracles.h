#pragma once
// The built-in oracle kinds, each made by a function in its own file; builtin_oracles.cpp registers
// them in one list (a new built-in oracle is one line there, never a case in a switch).
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

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

}  // namespace eosim::oracles
