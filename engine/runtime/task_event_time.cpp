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
#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kProcessingTimer{"task.processing_timer"};
}  // namespace

void Task::send_source_watermark() {
    SourceReader* source = chain_.source();
    const std::optional<SourceReader::Watermark> now = source->watermark(engine_.world().now());
    if (!now || source->reached_end()) return;  // the end sends kMaxWatermark (reach_end_of_data)
    if (now->idle != source_idle_) {
        source_idle_ = now->idle;
        ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
        status.idle = now->idle;
        writer_.broadcast(std::move(status));
    }
    if (now->idle || now->watermark <= source_watermark_) return;
    source_watermark_ = now->watermark;
    ChannelElement element{ChannelElement::Type::watermark, 0, {}};
    element.watermark = now->watermark;
    writer_.broadcast(std::move(element));
    engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id,
                                          key_.subtask, now->watermark);
}

void Task::handle_watermark_element(int32_t channel, const ChannelElement& element) {
    WatermarkValve* valve = inputs_.valve();
    if (valve == nullptr) return;
    const auto index = static_cast<size_t>(channel);
    const WatermarkValve::Output change = element.type == ChannelElement::Type::watermark
                                              ? valve->watermark_received(index, element.watermark)
                                              : valve->status_received(index, element.idle);
    forward_watermark(change);
}

// The operator fires its event-time timers first, then the watermark goes on (Flink's order).
void Task::forward_watermark(const WatermarkValve::Output& change) {
    if (change.watermark) {
        const int64_t watermark = *change.watermark;
        if (Operator* op = chain_.op()) {
            op->advance_watermark(watermark, chain_.output());
            schedule_processing_timer();
        }
        engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id,
                                              key_.subtask, watermark);
        if (!writer_.empty()) {
            ChannelElement element{ChannelElement::Type::watermark, 0, {}};
            element.watermark = watermark;
            writer_.broadcast(std::move(element));
        }
    }
    if (change.idle && !writer_.empty()) {
        ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
        status.idle = *change.idle;
        writer_.broadcast(std::move(status));
    }
}

void Task::schedule_processing_timer() {
    const std::optional<int64_t> next = chain_.op()->next_processing_timer();
    if (!next || (processing_timer_at_ && *processing_timer_at_ <= *next)) return;
    processing_timer_at_ = *next;
    const int64_t at = *next;
    const sim::Duration delay = std::max(
        sim::Duration::zero(), sim::Duration::millis(at) - (engine_.world().now() - sim::Time{}));
    engine_.schedule_for_task(node_, key_, delay, kProcessingTimer, [at](Task& task) {
        if (task.processing_timer_at_ != at || task.state() != State::running) return;
        task.processing_timer_at_.reset();
        task.chain_.op()->advance_processing_time(task.engine_.world().now().millis_count(),
                                                  task.chain_.output());
        task.schedule_processing_timer();
    });
}

// Before any record: timers at or below the restored watermark fired before the snapshot.
void Task::restore_watermark() {
    WatermarkValve* valve = inputs_.valve();
    if (valve == nullptr || !restored_watermark_ || *restored_watermark_ == kMinWatermark) return;
    const int64_t watermark = *restored_watermark_;
    valve->restore(watermark);
    if (Operator* op = chain_.op()) op->advance_watermark(watermark, chain_.output());
    engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id,
                                          key_.subtask, watermark);
}

}  // namespace eosim::engine
