#include "cli/progress.h"

#include <cstdio>
#include <stdexcept>

namespace eosim::cli {

namespace {

std::string clock_text(double seconds) {
    const long total = static_cast<long>(seconds + 0.5);
    char text[32];
    if (total >= 3600) {
        std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60,
                      total % 60);
    } else {
        std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
    }
    return text;
}

}  // namespace

ProgressMode parse_progress_mode(const std::string& text, bool stderr_is_terminal) {
    if (text == "auto") return stderr_is_terminal ? ProgressMode::bar : ProgressMode::lines;
    if (text == "bar") return ProgressMode::bar;
    if (text == "lines") return ProgressMode::lines;
    if (text == "none") return ProgressMode::none;
    throw std::invalid_argument("--progress: expected auto, bar, lines or none, found \"" + text +
                                "\"");
}

Progress::Progress(std::ostream& err, ProgressMode mode, size_t total, size_t already_done)
    : err_(err), mode_(mode), total_(total), already_done_(already_done) {}

std::string Progress::status_line() const {
    const size_t done = already_done_ + done_;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
    char text[160];
    std::snprintf(
        text, sizeof text, "%zu/%zu runs  %3.0f%%  %zu failed  %.0f runs/s  ", done, total_,
        total_ == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total_),
        failed_, rate);
    std::string line = text;
    if (done_ > 0 && done < total_) {
        line += "ETA " + clock_text(static_cast<double>(total_ - done) / rate);
    } else {
        line += "elapsed " + clock_text(elapsed);
    }
    return line;
}

void Progress::draw(bool force) {
    const auto now = Clock::now();
    if (mode_ == ProgressMode::bar) {
        if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
        const size_t done = already_done_ + done_;
        constexpr size_t kWidth = 30;
        const size_t filled = total_ == 0 ? kWidth : kWidth * done / total_;
        err_ << "\r\033[K[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] "
             << status_line() << std::flush;
        bar_visible_ = true;
        last_draw_ = now;
        return;
    }
    if (mode_ == ProgressMode::lines) {
        const size_t step = std::max<size_t>(1, total_ / 20);
        const bool due =
            (done_ - last_line_done_ >= step && now - last_draw_ >= std::chrono::seconds(1)) ||
            now - last_draw_ >= std::chrono::seconds(10);
        if (!force && !due) return;
        if (done_ == last_line_done_ && !force) return;
        err_ << "progress: " << status_line() << '\n' << std::flush;
        last_line_done_ = done_;
        last_draw_ = now;
    }
}

void Progress::run_finished(const reports::RunRecord& record) {
    ++done_;
    if (record.status != reports::RunStatus::passed) {
        ++failed_;
        if (mode_ != ProgressMode::none) {
            if (bar_visible_) err_ << "\r\033[K";
            err_ << (record.status == reports::RunStatus::error ? "ERROR  " : "FAILED ")
                 << record.scenario << " seed " << record.seed << ": " << record.reason << '\n';
            err_ << "       reproduce: " << record.reproduce << '\n' << std::flush;
            bar_visible_ = false;
            if (mode_ == ProgressMode::bar) draw(true);
        }
    }
    draw(false);
}

void Progress::tick() {
    if (mode_ == ProgressMode::bar) draw(false);
}

void Progress::finish() {
    if (mode_ == ProgressMode::bar && bar_visible_) {
        draw(true);
        err_ << '\n' << std::flush;
    }
    if (mode_ == ProgressMode::lines && done_ != last_line_done_) draw(true);
}

}  // namespace eosim::cli
