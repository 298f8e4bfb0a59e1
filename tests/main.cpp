// The Catch2 main of `eosim_tests`. Property tests (rc::prop) take their parameters from the
// RC_PARAMS environment variable, e.g. RC_PARAMS="seed=42 max_success=1000".
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
