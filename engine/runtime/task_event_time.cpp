// The event-time part of a Task (engine/runtime/task.h): watermarks out of a source, through the
// input valve of every other task, into its operator and on downstream; the input watermark in the
// task's checkpointed state; the operator's processing-time timers. Nothing here runs in a job
// without a watermark strategy, except the processing-time timers an operator asks for.
//
// Watermark and watermark-status elements travel in-band, in order, and take no credit. Flink
// serialises a watermark into the record buffers, but there it shares a buffer with records; here a
// credit stands for one whole buffer of records, so a credit per watermark would let watermarks
// use up the consumer's credit window and stall records where Flink would not. Without credit a
// watermark still never overtakes a record: the output queue sends in order and stops at the first
// buffer without credit, and the open buffer is sealed before a watermark is queued.
#include <cstring>

#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"

namespace eosim::engine {

namespace {
constexpr std::string_view kWatermarkMagic = "WMK1";
constexpr sim::EventKind kProcessingTimer{"task.processing_timer"};
}  // namespace

void Task::send_source_watermark() {
    const std::optional<SourceReader::Watermark> now = source_->watermark(engine_.world().now());
    if (!now || source_->reached_end()) return;  // the end sends kMaxWatermark (reach_end_of_data)
    if (now->idle != source_idle_) {
        source_idle_ = now->idle;
        ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
        status.idle = now->idle;
        broadcast(std::move(status));
    }
    if (now->idle || now->watermark <= source_watermark_) return;
    source_watermark_ = now->watermark;
    ChannelElement element{ChannelElement::Type::watermark, 0, {}};
    element.watermark = now->watermark;
    broadcast(std::move(element));
    engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask, now->watermark);
}

void Task::handle_watermark_element(int32_t channel, const ChannelElement& element) {
    if (!valve_) return;
    const auto index = static_cast<size_t>(channel);
    const WatermarkValve::Output change = element.type == ChannelElement::Type::watermark
                                              ? valve_->watermark_received(index, element.watermark)
                                              : valve_->status_received(index, element.idle);
    forward_watermark(change);
}

// The operator fires its event-time timers first, then the watermark goes on (Flink's order).
void Task::forward_watermark(const WatermarkValve::Output& change) {
    if (change.watermark) {
        const int64_t watermark = *change.watermark;
        if (operator_) {
            operator_->advance_watermark(watermark, operator_output_);
            schedule_processing_timer();
        }
        engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask, watermark);
        if (!outputs_.empty()) {
            ChannelElement element{ChannelElement::Type::watermark, 0, {}};
            element.watermark = watermark;
            broadcast(std::move(element));
        }
    }
    if (change.idle && !outputs_.empty()) {
        ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
        status.idle = *change.idle;
        broadcast(std::move(status));
    }
}

void Task::schedule_processing_timer() {
    const std::optional<int64_t> next = operator_->next_processing_timer();
    if (!next || (processing_timer_at_ && *processing_timer_at_ <= *next)) return;
    processing_timer_at_ = *next;
    const int64_t at = *next;
    const sim::Duration delay = std::max(sim::Duration::zero(), sim::Duration::millis(at) - (engine_.world().now() - sim::Time{}));
    engine_.schedule_for_task(node_, key_, delay, kProcessingTimer, [at](Task& task) {
        if (task.processing_timer_at_ != at || task.state_ != State::running) return;
        task.processing_timer_at_.reset();
        task.operator_->advance_processing_time(task.engine_.world().now().millis_count(), task.operator_output_);
        task.schedule_processing_timer();
    });
}

std::string Task::with_watermark(int64_t checkpoint_id, std::string blob) {
    auto it = snapshot_watermarks_.find(checkpoint_id);
    const int64_t watermark = it == snapshot_watermarks_.end() ? kMinWatermark : it->second;
    if (it != snapshot_watermarks_.end()) snapshot_watermarks_.erase(snapshot_watermarks_.begin(), std::next(it));
    std::string out(kWatermarkMagic);
    out.resize(kWatermarkMagic.size() + sizeof(int64_t));
    std::memcpy(out.data() + kWatermarkMagic.size(), &watermark, sizeof(int64_t));
    out += blob;
    return out;
}

// Strips the watermark from a restored state (a state written without one, e.g. by a job version
// without watermarks, restores at kMinWatermark) and keeps the minimum over the subtasks read.
void Task::take_restored_watermark(std::string& blob) {
    int64_t watermark = kMinWatermark;
    if (blob.size() >= kWatermarkMagic.size() + sizeof(int64_t) && blob.compare(0, kWatermarkMagic.size(), kWatermarkMagic) == 0) {
        std::memcpy(&watermark, blob.data() + kWatermarkMagic.size(), sizeof(int64_t));
        blob.erase(0, kWatermarkMagic.size() + sizeof(int64_t));
    }
    restored_watermark_ = restored_watermark_ ? std::min(*restored_watermark_, watermark) : watermark;
}

// Before any record: timers at or below the restored watermark fired before the snapshot.
void Task::restore_watermark() {
    if (!valve_ || !restored_watermark_ || *restored_watermark_ == kMinWatermark) return;
    const int64_t watermark = *restored_watermark_;
    valve_->restore(watermark);
    if (operator_) operator_->advance_watermark(watermark, operator_output_);
    engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask, watermark);
}

}  // namespace eosim::engine
