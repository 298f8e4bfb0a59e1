// Registers the example's sink kind "file": scenario files name it, and so do the tests.
#include "file_sink.h"

EOSIM_REGISTER_SINK(file_sink_example::file_sink_kind("file", false));
