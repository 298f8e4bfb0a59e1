#pragma once
// The exit codes of every `eosim` command: a contract with CI systems and scripts.
namespace eosim::cli {

inline constexpr int kExitMet = 0;     // every expectation met
inline constexpr int kExitNotMet = 1;  // some expectation not met
inline constexpr int kExitBadInput =
    2;  // bad input: file, JSON path and what was expected on stderr
inline constexpr int kExitInternal = 3;       // an internal error (a bug in eosim)
inline constexpr int kExitInterrupted = 130;  // interrupted (SIGINT), as shells report it

}  // namespace eosim::cli
