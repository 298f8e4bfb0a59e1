#pragma once
// Invariants checked in every build, Release included (as TigerBeetle asserts in production): a
// slip inside the simulator or the engine stops the run with the invariant's name and place instead
// of running on into undefined behaviour. Only cheap conditions: some sit on the per-buffer path.
//
//   EOSIM_INVARIANT(out.credits >= 0, "credits never negative");
//
// A broken invariant goes to the handler. The default one prints
//   eosim: invariant broken: credits never negative (out.credits >= 0) at
//   engine/runtime/record_writer.cpp:120
// to stderr and aborts. A test installs its own (ScopedInvariantHandler) to see a check fire
// without dying; a handler must not return (one that does is followed by the abort).
// `eosim explore`, which runs many runs in one process, installs throw_invariant_broken: the
// broken run ends with InvariantBrokenError, is reported with its reproducer, and the others go on.
#include <stdexcept>
#include <string>

namespace eosim::sim {

struct InvariantFailure {
    const char* name;       // what must hold, in words
    const char* condition;  // the condition as written
    const char* file;
    int line;

    std::string message() const;  // "invariant broken: <name> (<condition>) at <file>:<line>"
};

using InvariantHandler = void (*)(const InvariantFailure&);

// Installs `handler` (nullptr: the default) and returns the one it replaces.
InvariantHandler set_invariant_handler(InvariantHandler handler);

[[noreturn]] void invariant_broken(const char* name, const char* condition, const char* file,
                                   int line);

// What throw_invariant_broken throws: the failure's message().
class InvariantBrokenError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

// A handler that throws InvariantBrokenError: the run stops, the process goes on.
[[noreturn]] void throw_invariant_broken(const InvariantFailure& failure);

// Installs a handler for a scope (tests).
class ScopedInvariantHandler {
public:
    explicit ScopedInvariantHandler(InvariantHandler handler)
        : previous_(set_invariant_handler(handler)) {}
    ~ScopedInvariantHandler() { set_invariant_handler(previous_); }
    ScopedInvariantHandler(const ScopedInvariantHandler&) = delete;
    ScopedInvariantHandler& operator=(const ScopedInvariantHandler&) = delete;

private:
    InvariantHandler previous_;
};

}  // namespace eosim::sim

#define EOSIM_INVARIANT(condition, name) \
    ((condition) ? static_cast<void>(0)  \
                 : ::eosim::sim::invariant_broken(name, #condition, __FILE__, __LINE__))
