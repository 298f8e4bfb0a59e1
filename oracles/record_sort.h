#pragma once
// Sorting records by (key, value), fast: the output oracles compare a sink's whole content with the
// model's as sorted multisets, and on a 100k-record run a comparison sort of both was the largest
// single cost of the run. Records whose keys and values span small ranges (every scenario's) are
// packed into one 64-bit number each and radix-sorted when their other fields (version, kind,
// timestamp) are all equal; others fall back to std::sort (the full (key, value, version, kind,
// timestamp) order).
#include <vector>

#include "engine/vocabulary/record.h"

namespace eosim::oracles {

void sort_records(std::vector<engine::Record>& records);

}  // namespace eosim::oracles
