// Registers the buggy variant of the asynchronous bulk writer as "buggy_async_stale_completion"
// (AsyncSlip::stale_completion; see ../async-sink/async_sink.h).
#include "../async-sink/async_sink.h"

EOSIM_REGISTER_SINK(async_sink_example::async_kind(
    "buggy_async_stale_completion", async_sink_example::AsyncSlip::stale_completion));
