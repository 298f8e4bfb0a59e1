// The stock `eosim` binary: the built-in sink kinds only. A user's own binary is the same line
// with their sinks registered in their own translation units (cli/eosim_main.h).
#include "cli/eosim_main.h"

int main(int argc, char** argv) { return eosim::eosim_main(argc, argv); }
