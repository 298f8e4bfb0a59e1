#pragma once
// The whole `eosim` command as one function, so a sink author links it into their own binary:
//
//     // my_sink.cpp
//     #include <eosim/engine/connectors/sink_registry.h>
//     EOSIM_REGISTER_SINK(my_sink_kind());
//
//     // main.cpp
//     #include <eosim/cli/eosim_main.h>
//     int main(int argc, char** argv) { return eosim::eosim_main(argc, argv); }
//
// and `my-eosim run|suite|explore|shrink|merge|sinks` all know the user's sink kind: `suite` starts
// its workers as this same program (/proc/self/exe, resolved once when eosim_main starts), and
// `explore` and `shrink` run in-process. Link the CMake target eosim::main.
//
// Returns the exit code: 0 every expectation met; 1 an expectation not met (or a determinism check
// failed); 2 bad input (command line, scenario file, output file); 3 an internal error (a bug in
// eosim); 130 a suite interrupted (resume it with --resume). See cli/exit_codes.h.
namespace eosim {

int eosim_main(int argc, char** argv);

}  // namespace eosim
