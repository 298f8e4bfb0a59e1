// Registers the example's sink kind "kv_table": scenario files name it, and so do the tests.
#include "kv_table_sink.h"

EOSIM_REGISTER_SINK(kv_table_example::kv_table_kind("kv_table"));
