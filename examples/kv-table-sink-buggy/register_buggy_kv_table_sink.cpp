// Registers the buggy variant of the key-value table sink as "buggy_kv_table": a plain SET per
// record, without the version guard.
#include "../kv-table-sink/kv_table_sink.h"

EOSIM_REGISTER_SINK(kv_table_example::kv_table_kind(
    "buggy_kv_table", kv_table_example::KvTableSlip::no_version_guard));
