#pragma once
// Progress of a suite on standard error: on a terminal a bar redrawn in place (done/total,
// failures, runs per second, ETA), elsewhere (CI logs) a plain line every 5% or 10 seconds. Runs
// that fail are printed as they happen, each on its own line, in both modes.
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

#include "reports/run_record.h"

namespace eosim::cli {

enum class ProgressMode { bar, lines, none };

// "auto" (bar on a terminal, lines otherwise), "bar", "lines" or "none"; throws
// std::invalid_argument.
ProgressMode parse_progress_mode(const std::string& text, bool stderr_is_terminal);

class Progress {
public:
    Progress(std::ostream& err, ProgressMode mode, size_t total, size_t already_done);

    void run_finished(const reports::RunRecord& record);
    void tick();    // redraws the bar if it is due
    void finish();  // clears the bar

private:
    void draw(bool force);
    std::string status_line() const;

    using Clock = std::chrono::steady_clock;
    std::ostream& err_;
    ProgressMode mode_;
    size_t total_;
    size_t already_done_;
    size_t done_ = 0;
    size_t failed_ = 0;
    Clock::time_point start_ = Clock::now();
    Clock::time_point last_draw_{};
    size_t last_line_done_ = 0;
    bool bar_visible_ = false;
};

}  // namespace eosim::cli
