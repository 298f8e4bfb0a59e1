// Registers the example's sink kind "async_documents": scenario files name it, and so do the tests.
#include "async_sink.h"

EOSIM_REGISTER_SINK(async_sink_example::async_kind("async_documents"));
