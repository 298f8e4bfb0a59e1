#pragma once
// Mirror: for a CDC pipeline that copies a table (cdc_source -> upsert_sink), the target table at
// the end of the run equals the source table at the end: every key present in one is present in the
// other with the same value; a deleted key is absent from both (a tombstone counts as absent).
// Reports the first key that differs and the counts of missing, extra and different rows.
//
// When the job failed as the scenario expects ({"job_failure": ...}) the target is compared with
// the source as of what the job reached: the binlog position of the lower cut of its committed
// prefix (oracles/oracle_registry.h, CommittedPrefix; the start while a snapshot chunk was
// unfinished there). Each key must hold its source value at that position or one a later change
// gave it (the upsert writes what the job read after the cut at once), or be absent where the
// source row was absent then or removed later: a change before the cut that never reached the
// target is caught, changes the job never read are not missing.
//
// Checks: (key, value) of the final tables, independent of the reference model (it reads both
// databases). Does not check: versions, what readers saw during the run (no_key_backwards does),
// or pipelines that transform rows (an aggregate's target table is checked against the model by
// the output oracles).
#include <optional>
#include <string>

#include "oracles/oracle.h"
#include "oracles/oracle_registry.h"
#include "sim/external/database.h"

namespace eosim::oracles {

class MirrorOracle final : public Oracle {
public:
    MirrorOracle(const sim::external::Database& source, std::string source_table,
                 const sim::external::Database& target, std::string target_table)
        : source_(source),
          source_table_(std::move(source_table)),
          target_(target),
          target_table_(std::move(target_table)) {}
    const char* name() const override { return "mirror"; }
    Verdict verdict() const override;
    // The job failed as the scenario expects: compare as of its committed prefix (see above).
    void set_job_failed(CommittedPrefix prefix) { failed_ = std::move(prefix); }

private:
    const sim::external::Database& source_;
    std::string source_table_;
    const sim::external::Database& target_;
    std::string target_table_;
    std::optional<CommittedPrefix> failed_;

    Verdict failed_job_verdict() const;
    // The binlog position the job's lower cut reached (the start when a chunk was not finished).
    sim::external::BinlogPosition lower_position() const;
};

}  // namespace eosim::oracles
