#include "engine/runtime/watermark_valve.h"

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace eosim::engine {

WatermarkValve::WatermarkValve(size_t channels) : channels_(channels) {}

// Every channel still takes part in the minimum: the restored watermark is a floor under it, so a
// channel whose watermark is behind the floor holds the task there until it catches up (its
// records above the floor are not late because another channel ran ahead).
void WatermarkValve::restore(int64_t watermark) { current_ = watermark; }

std::optional<int64_t> WatermarkValve::advance() {
    bool any = false;
    int64_t minimum = kMaxWatermark;
    for (const Channel& c : channels_) {
        if (c.idle || !c.aligned) continue;
        any = true;
        minimum = std::min(minimum, c.watermark);
    }
    if (!any || minimum <= current_) return std::nullopt;
    current_ = minimum;
    return minimum;
}

WatermarkValve::Output WatermarkValve::watermark_received(size_t channel, int64_t watermark) {
    Channel& c = channels_.at(channel);
    Output out;
    if (c.idle || watermark <= c.watermark)
        return out;  // an idle channel sends none; never backwards
    c.watermark = watermark;
    if (!c.aligned && watermark >= current_) c.aligned = true;
    out.watermark = advance();
    return out;
}

WatermarkValve::Output WatermarkValve::status_received(size_t channel, bool idle) {
    Channel& c = channels_.at(channel);
    Output out;
    if (c.idle == idle) return out;
    c.idle = idle;
    if (idle) {
        bool all_idle = true;
        for (const Channel& other : channels_) all_idle = all_idle && other.idle;
        if (all_idle) {
            output_idle_ = true;
            out.idle = true;
        } else {
            out.watermark = advance();
        }
        return out;
    }
    // Active again: it rejoins the minimum once its watermark reaches the task's.
    c.aligned = c.watermark >= current_;
    if (output_idle_) {
        output_idle_ = false;
        out.idle = false;
    }
    return out;
}

namespace {
constexpr std::string_view kWatermarkMagic = "WMK1";
}  // namespace

std::string prepend_watermark(int64_t watermark, std::string blob) {
    std::string out(kWatermarkMagic);
    out.resize(kWatermarkMagic.size() + sizeof(int64_t));
    std::memcpy(out.data() + kWatermarkMagic.size(), &watermark, sizeof(int64_t));
    out += blob;
    return out;
}

int64_t strip_watermark(std::string& blob) {
    int64_t watermark = kMinWatermark;
    if (blob.size() >= kWatermarkMagic.size() + sizeof(int64_t) &&
        blob.compare(0, kWatermarkMagic.size(), kWatermarkMagic) == 0) {
        std::memcpy(&watermark, blob.data() + kWatermarkMagic.size(), sizeof(int64_t));
        blob.erase(0, kWatermarkMagic.size() + sizeof(int64_t));
    }
    return watermark;
}

}  // namespace eosim::engine
