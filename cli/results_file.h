#pragma once
// A suite's results file: JSON lines, a header first, then one line per finished run (a
// `reports::RunRecord`), appended as each run finishes with a single write, so an interrupted
// suite loses at most the runs in flight and can be resumed; shards' files merge into one report.
//
// The header: {"eosim_results": 1, "suite": name, "plan": plan_json(...), "shard": {"index": I,
// "total": N}, "shard_runs": runs of this shard}. Reading tolerates an incomplete last line (the
// process was killed mid-write) and skips, with a warning, any other line that is not a record.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/run_values.h"
#include "reports/run_record.h"

namespace eosim::cli {

struct ResultsHeader {
    std::string suite;
    nlohmann::json plan;  // plan_json(...)
    Shard shard;
    size_t shard_runs = 0;
};

struct ResultsFile {
    ResultsHeader header;
    std::vector<reports::RunRecord> records;  // in file order
    std::vector<std::string> warnings;
};

class ResultsError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws ResultsError when the file cannot be read or is not a results file.
ResultsFile read_results_file(const std::filesystem::path& path);

class ResultsWriter {
public:
    // Writes the header and `kept` (records carried over by a resume) to a temporary file next to
    // `path` and renames it over `path`; later records are appended. Throws ResultsError.
    ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header,
                  const std::vector<reports::RunRecord>& kept);
    ~ResultsWriter();
    ResultsWriter(const ResultsWriter&) = delete;
    ResultsWriter& operator=(const ResultsWriter&) = delete;

    void append(const reports::RunRecord& record);  // throws ResultsError

private:
    int fd_ = -1;
    std::string path_;
};

}  // namespace eosim::cli
