// Your own eosim binary: the project's command line (run, suite, explore, shrink) with your sink
// kinds registered, so scenario files that name "file" run. eosim::main provides eosim_main().
int eosim_main(int argc, char** argv);

int main(int argc, char** argv) { return eosim_main(argc, argv); }
