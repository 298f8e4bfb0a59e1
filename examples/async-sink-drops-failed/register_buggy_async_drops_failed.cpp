// Registers the buggy variant of the asynchronous bulk writer as "buggy_async_drops_failed"
// (AsyncSlip::drop_failed; see ../async-sink/async_sink.h).
#include "../async-sink/async_sink.h"

EOSIM_REGISTER_SINK(async_sink_example::async_kind("buggy_async_drops_failed",
                                                   async_sink_example::AsyncSlip::drop_failed));
