#pragma once
// A failed job's committed output against its committed prefix (oracles/oracle_registry.h,
// CommittedPrefix): what the output oracles judge when the job failed for good, instead of the
// model's output over the whole input (input the job never read is not missing).
// - appended: every record of the model's output up to the lower cut is committed (nothing lost),
//   and nothing is committed beyond the model's output up to the upper cut, record by record
//   (nothing duplicated, nothing of input no completed snapshot covers);
// - a keyed table: every key the model has at the lower cut is there, each key holds its value at
//   the lower cut or one it takes after it (an idempotent sink writes before the checkpoint that
//   covers it completes), and no key the model never has is there;
// - key counts: each key's count is at least its count at the lower cut, at most its count over
//   the whole input.
//
// Does not check: order; tables' values beyond the upper cut (an idempotent write lands at once).
#include <cstdint>
#include <optional>
#include <string>

#include "oracles/oracle_registry.h"
#include "oracles/output_comparison.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

// What an output oracle needs to judge a failed job ("" when it can): an input it can cut at source
// offsets. A CDC job's model reads the source table as it is at the end, not as of the binlog
// position the job reached (the mirror oracle judges a failed CDC copy).
std::string failed_job_needs(const OracleJobFacts& facts);

struct CommittedPrefixComparison {
    int64_t committed = 0;       // records (or rows) the sink shows
    int64_t lower_expected = 0;  // the model's output up to the lower cut
    int64_t upper_expected = 0;  // up to the upper cut (tables: over the whole input)
    int64_t missing = 0;         // of the lower cut's output, not committed
    int64_t beyond = 0;  // committed beyond the upper cut's output: duplicated, or never covered
    std::string first;   // the first record or key missing or beyond

    static CommittedPrefixComparison appended(const ReferenceModel& model, const std::string& sink,
                                              const CommittedPrefix& prefix,
                                              const RecordMultiset& actual);
    // `counts`: the table counts the model's records per key (SinkOutputShape::key_counts).
    static CommittedPrefixComparison table(const ReferenceModel& model, const std::string& sink,
                                           const CommittedPrefix& prefix,
                                           const RecordMultiset& actual, bool counts);
    // "sink 'sink': 812 committed records, 800 to 900 expected by the committed prefix (...)[; 3
    // missing, ...]"
    std::string describe(const std::string& sink, const CommittedPrefix& prefix,
                         const char* unit) const;
};

}  // namespace eosim::oracles
