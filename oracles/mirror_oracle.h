#pragma once
// Mirror: for a CDC pipeline that copies a table (cdc_source -> upsert_sink), the target table at
// the end of the run equals the source table at the end: every key present in one is present in the
// other with the same value; a deleted key is absent from both (a tombstone counts as absent).
// Reports the first key that differs and the counts of missing, extra and different rows.
//
// Checks: (key, value) of the final tables, independent of the reference model (it reads both
// databases). Does not check: versions, what readers saw during the run (no_key_backwards does),
// or pipelines that transform rows (an aggregate's target table is checked against the model by
// the output oracles).
#include <string>

#include "oracles/oracle.h"
#include "sim/external/database.h"

namespace eosim::oracles {

class MirrorOracle final : public Oracle {
public:
    MirrorOracle(const sim::external::Database& source, std::string source_table, const sim::external::Database& target,
                 std::string target_table)
        : source_(source), source_table_(std::move(source_table)), target_(target), target_table_(std::move(target_table)) {}
    const char* name() const override { return "mirror"; }
    Verdict verdict() const override;

private:
    const sim::external::Database& source_;
    std::string source_table_;
    const sim::external::Database& target_;
    std::string target_table_;
};

}  // namespace eosim::oracles
