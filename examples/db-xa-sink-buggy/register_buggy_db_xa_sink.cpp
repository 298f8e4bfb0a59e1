// Registers the buggy variant of the database XA sink as "buggy_db_xa": on recovery it rolls back
// every prepared (staged) transaction, the restored checkpoint's too.
#include "../db-xa-sink/db_xa_sink.h"

EOSIM_REGISTER_SINK(db_xa_example::db_xa_kind("buggy_db_xa",
                                              db_xa_example::DbXaSlip::roll_back_restored));
