// Registers the buggy variant of the asynchronous bulk writer as "buggy_async_no_wait"
// (AsyncSlip::no_wait; see ../async-sink/async_sink.h).
#include "../async-sink/async_sink.h"

EOSIM_REGISTER_SINK(async_sink_example::async_kind("buggy_async_no_wait",
                                                   async_sink_example::AsyncSlip::no_wait));
