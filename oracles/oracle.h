#pragma once
// An oracle: a checker that watches a run (as a RunObserver) and gives a verdict at its end.
// Each oracle's header says what it checks and what it does not.
#include <functional>
#include <string>
#include <vector>

#include "engine/vocabulary/record.h"
#include "engine/vocabulary/run_observer.h"
#include "oracles/record_multiset.h"

namespace eosim::oracles {

struct Verdict {
    bool passed = true;
    std::string
        message;  // for a violation: the first offending record or key, counts, virtual time
};

class Oracle : public engine::RunObserver {
public:
    virtual const char* name() const = 0;
    virtual Verdict verdict() const = 0;
};

// What a committed reader of a sink's outside system sees at the end of the run, as a compact
// sorted multiset (a reader may hand a plain vector in any order: it converts).
using SinkReader = std::function<RecordMultiset()>;

}  // namespace eosim::oracles
