// The user's own eosim binary: every eosim command, with the sink kinds registered in this program.
#include <eosim/cli/eosim_main.h>

int main(int argc, char** argv) { return eosim::eosim_main(argc, argv); }
