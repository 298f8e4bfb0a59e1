// Registers the example's sink kind "db_xa": scenario files name it, and so do the tests.
#include "db_xa_sink.h"

EOSIM_REGISTER_SINK(db_xa_example::db_xa_kind("db_xa", db_xa_example::DbXaSlip::none));
