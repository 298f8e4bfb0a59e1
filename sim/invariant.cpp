#include "sim/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace eosim::sim {

namespace {
void print_and_abort(const InvariantFailure& failure) {
    std::fprintf(stderr, "eosim: %s\n", failure.message().c_str());
    std::fflush(stderr);
    std::abort();
}

InvariantHandler handler = print_and_abort;
}  // namespace

std::string InvariantFailure::message() const {
    return std::string("invariant broken: ") + name + " (" + condition + ") at " + file + ":" +
           std::to_string(line);
}

InvariantHandler set_invariant_handler(InvariantHandler replacement) {
    const InvariantHandler previous = handler;
    handler = replacement != nullptr ? replacement : print_and_abort;
    return previous;
}

void throw_invariant_broken(const InvariantFailure& failure) {
    throw InvariantBrokenError(failure.message());
}

// Out of line and cold: a check on a hot path (the scheduler's step is flattened) costs its
// comparison and a branch, not the reporting code.
[[gnu::noinline, gnu::cold]] void invariant_broken(const char* name, const char* condition,
                                                   const char* file, int line) {
    handler(InvariantFailure{name, condition, file, line});
    std::abort();  // a handler that returned
}

}  // namespace eosim::sim
