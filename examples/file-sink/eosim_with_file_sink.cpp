// Your own eosim binary: the project's command line (run, suite, explore, shrink, sinks) with your
// sink kinds registered, so scenario files that name "file" run (the job-level test's replays).
#include "cli/eosim_main.h"

int main(int argc, char** argv) { return eosim::eosim_main(argc, argv); }
