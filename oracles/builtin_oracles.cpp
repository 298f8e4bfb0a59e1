#include "oracles/builtin_oracles.h"

namespace eosim::oracles {

// In the order listings and error messages name them.
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
}

}  // namespace eosim::oracles
