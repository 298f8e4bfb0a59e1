#pragma once
// A task's input watermark, after Flink's StatusWatermarkValve: each input channel carries
// watermarks and an idle/active status; the task's watermark is the minimum over the active
// channels whose watermark has caught up with it, and never goes backwards. A channel that turns
// idle leaves the minimum (which may then advance); when every channel is idle the task's output
// turns idle; when one turns active again, the output turns active and that channel rejoins the
// minimum once its watermark reaches the task's (Flink's "aligned" channels).
//
// What it does not do: it does not output the maximum over the channels when all turn idle (newer
// Flink does); an all-idle task holds its watermark (design-14: all idle => forward idle only).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/record.h"

namespace eosim::engine {

class WatermarkValve {
public:
    // What a change makes the task send on: a new watermark, and/or a new output status.
    struct Output {
        std::optional<int64_t> watermark;
        std::optional<bool> idle;  // true: the output turned idle; false: it turned active again
    };

    explicit WatermarkValve(size_t channels);

    Output watermark_received(size_t channel, int64_t watermark);
    Output status_received(size_t channel, bool idle);
    // A restore: the task's watermark starts at `watermark`, a floor under the channels' minimum.
    void restore(int64_t watermark);
    int64_t current() const { return current_; }
    bool idle() const { return output_idle_; }

private:
    struct Channel {
        int64_t watermark = kMinWatermark;
        bool idle = false;
        bool aligned =
            true;  // its watermark is at or above the task's: it takes part in the minimum
    };
    std::optional<int64_t>
    advance();  // the new minimum over active aligned channels, if it moved up

    std::vector<Channel> channels_;
    int64_t current_ = kMinWatermark;
    bool output_idle_ = false;
};

// A non-source task checkpoints its input watermark in front of its state:
// "WMK1" | watermark | state.
std::string prepend_watermark(int64_t watermark, std::string blob);
// Strips the watermark from a restored state and returns it; a state written without one (e.g. by
// a job version without watermarks) restores at kMinWatermark.
int64_t strip_watermark(std::string& blob);

}  // namespace eosim::engine
