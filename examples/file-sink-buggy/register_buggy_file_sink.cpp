// Registers the buggy variant of the example file sink as "buggy_file": the same sink with one
// classic slip, committing (completing the upload) already at pre-commit.
#include "../file-sink/file_sink.h"

EOSIM_REGISTER_SINK(file_sink_example::file_sink_kind("buggy_file", true));
