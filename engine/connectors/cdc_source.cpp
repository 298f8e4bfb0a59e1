#include "engine/connectors/cdc_source.h"

#include <algorithm>

#include "engine/state/blob_codec.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

using sim::external::BinlogEvent;
using sim::external::BinlogPosition;
using sim::external::ChangeKind;
using sim::external::DatabaseError;
using sim::external::Row;

namespace {
Record to_record(const Row& row, RowKind kind, int64_t version) {
    return Record{row.key, row.value, static_cast<int32_t>(version), kind};
}
}  // namespace

CdcSourceReader::CdcSourceReader(const VertexSpec& vertex, SinkContext& context,
                                 sim::external::Database& database, int32_t subtask)
    : context_(context),
      database_(database),
      table_(vertex.table),
      chunk_size_(std::max<int64_t>(1, vertex.chunk_size)),
      fetch_size_(std::max<int64_t>(1, vertex.fetch_size)),
      lane_("cdc source-" + std::to_string(subtask)) {
    chunk_count_ = static_cast<int32_t>(
        std::max<int64_t>(1, (vertex.chunk_key_end + chunk_size_ - 1) / chunk_size_));
    for (int32_t i = subtask; i < chunk_count_; i += vertex.parallelism) {
        chunk_slot_[i] = chunks_.size();
        chunks_.push_back(Chunk{i, ChunkStatus::unread, {}, std::nullopt, 0, false, sim::Time{}});
    }
}

std::optional<int64_t> CdcSourceReader::chunk_from(int32_t index) const {
    if (index == 0) return std::nullopt;
    return index * chunk_size_;
}

std::optional<int64_t> CdcSourceReader::chunk_to(int32_t index) const {
    if (index == chunk_count_ - 1) return std::nullopt;
    return (index + 1) * chunk_size_;
}

int32_t CdcSourceReader::chunk_of(int64_t key) const {
    if (key < 0) return 0;
    return static_cast<int32_t>(std::min<int64_t>(key / chunk_size_, chunk_count_ - 1));
}

bool CdcSourceReader::snapshot_done() const {
    return std::all_of(chunks_.begin(), chunks_.end(), [](const Chunk& c) { return c.finished(); });
}

void CdcSourceReader::check_live_after_point() const {
    // A crash at a point unwinds the running handler (sim/scheduler.h, the crash boundary).
    EOSIM_INVARIANT(context_.world().nodes().is_up(context_.node()),
                    "no source code runs on a crashed node after an announcement");
}

std::string CdcSourceReader::describe(DatabaseError error, BinlogPosition at) const {
    if (error == DatabaseError::binlog_purged) {
        return "binlog position " + at.describe() + " of table '" + table_ +
               "' was purged (oldest retained file " +
               BinlogPosition{database_.first_retained_file(), 0}.describe() +
               "); resuming would lose the changes in between";
    }
    return std::string("database ") + to_string(error);
}

// ---- restore and snapshot -----------------------------------------------------------------------

void CdcSourceReader::restore(const std::vector<std::string>& snapshots) {
    for (Chunk& chunk : chunks_)
        chunk = Chunk{chunk.index, ChunkStatus::unread, {}, std::nullopt, 0, false, sim::Time{}};
    for (const std::string& blob : snapshots) {
        BlobReader in(blob);
        while (!in.done()) {
            const auto index = static_cast<int32_t>(in.get_i64());
            const auto status = static_cast<ChunkStatus>(in.get_i64());
            const BinlogPosition position{static_cast<int32_t>(in.get_i64()), in.get_i64()};
            auto it = chunk_slot_.find(index);
            if (it == chunk_slot_.end()) continue;
            // A chunk read at H in the restored (complete) checkpoint may be emitted once rebuilt
            // at H.
            chunks_[it->second] = Chunk{
                index, status, position, std::nullopt, 0, status == ChunkStatus::read, sim::Time{}};
        }
    }
    reading_.reset();
    binlog_started_ = false;
}

std::string CdcSourceReader::snapshot(int64_t checkpoint_id) {
    BlobWriter out;
    for (Chunk& chunk : chunks_) {
        if (chunk.status == ChunkStatus::read && chunk.captured_by == 0)
            chunk.captured_by = checkpoint_id;
        out.put_i64(chunk.index);
        out.put_i64(static_cast<int64_t>(chunk.status));
        out.put_i64(chunk.position.file);
        out.put_i64(chunk.position.offset);
    }
    if (binlog_started_) binlog_snapshots_.insert(checkpoint_id);
    return out.take();
}

void CdcSourceReader::add_offsets(SourceOffsets* offsets) const {
    for (const Chunk& chunk : chunks_) {
        (*offsets)[{"cdc:" + table_, chunk.index}] =
            chunk.finished()
                ? (static_cast<int64_t>(chunk.position.file) << 40) + chunk.position.offset
                : -1;
    }
}

void CdcSourceReader::checkpoint_complete(int64_t checkpoint_id) {
    for (Chunk& chunk : chunks_) {
        if (chunk.status == ChunkStatus::read && chunk.captured_by != 0 &&
            chunk.captured_by <= checkpoint_id) {
            chunk.releasable = true;
        }
    }
    // Completion of N subsumes earlier ones: announce once for the newest binlog-phase snapshot it
    // covers.
    auto covered = binlog_snapshots_.upper_bound(checkpoint_id);
    if (covered == binlog_snapshots_.begin()) return;
    binlog_snapshots_.erase(binlog_snapshots_.begin(), covered);
    context_.announce(points::kCdcBinlogCheckpointed, checkpoint_id);
}

// ---- reading ------------------------------------------------------------------------------------

std::optional<std::string> CdcSourceReader::poll(size_t max_records, RecordBatch* out) {
    for (Chunk& chunk : chunks_) {
        if (chunk.status == ChunkStatus::read && chunk.releasable && chunk.rows) {
            emit_chunk(chunk, out);
            return std::nullopt;
        }
    }
    if (snapshot_done()) return read_binlog(max_records, out);
    return read_chunk_page(out);
}

bool CdcSourceReader::reached_end() const {
    if (!snapshot_done() || !database_.read_only()) return false;
    const BinlogPosition end = database_.end_position();
    return std::all_of(chunks_.begin(), chunks_.end(),
                       [&end](const Chunk& c) { return c.position >= end; });
}

void CdcSourceReader::emit_chunk(Chunk& chunk, RecordBatch* out) {
    for (const auto& [key, row] : *chunk.rows)
        out->push_back(to_record(row, RowKind::insert, row.version));
    context_.observer().connector_event(
        chunk.read_started, context_.world().now(), lane_, "cdc.chunk",
        "chunk " + std::to_string(chunk.index) + ": " + std::to_string(chunk.rows->size()) +
            " rows at " + chunk.position.describe() + ", read then emitted");
    chunk.status = ChunkStatus::emitted;
    chunk.rows.reset();
    context_.announce(points::kCdcChunkFinished, chunk.index);
    check_live_after_point();
    if (snapshot_done()) context_.announce(points::kCdcSnapshotFinished, context_.subtask());
}

std::optional<std::string> CdcSourceReader::read_chunk_page(RecordBatch* out) {
    if (!reading_) {
        // The next chunk to read: unread, or read at H by an earlier attempt (rebuilt at H).
        size_t next = 0;
        while (next < chunks_.size() &&
               !(chunks_[next].status == ChunkStatus::unread ||
                 (chunks_[next].status == ChunkStatus::read && !chunks_[next].rows))) {
            ++next;
        }
        if (next == chunks_.size())
            return std::nullopt;  // every chunk read, waiting for a checkpoint
        BinlogPosition low;
        if (DatabaseError e = database_.current_position(context_.node(), &low);
            e != DatabaseError::none) {
            return describe(e, low);
        }
        context_.announce(points::kCdcChunkStarted, chunks_[next].index);
        check_live_after_point();
        std::optional<BinlogPosition> as_of;
        if (chunks_[next].status == ChunkStatus::read) as_of = chunks_[next].position;
        reading_ = ChunkRead{next, low, std::nullopt, {}, as_of};
        chunks_[next].read_started = context_.world().now();
    }
    const int32_t index = chunks_[reading_->chunk].index;
    std::vector<Row> page;
    const DatabaseError e =
        database_.scan_range(context_.node(), table_, chunk_from(index), chunk_to(index),
                             reading_->after_key, static_cast<size_t>(fetch_size_), &page);
    if (e != DatabaseError::none) return describe(e, reading_->low);
    for (const Row& row : page) reading_->rows[row.key] = row;
    if (!page.empty()) reading_->after_key = page.back().key;
    if (static_cast<int64_t>(page.size()) == fetch_size_)
        return std::nullopt;  // more pages to come
    return finish_chunk(out);
}

std::optional<std::string> CdcSourceReader::replay_chunk_events(int32_t index, BinlogPosition from,
                                                                BinlogPosition to, bool undo,
                                                                std::map<int64_t, Row>* rows) {
    std::vector<BinlogEvent> events;
    BinlogPosition at = from;
    while (at < to) {
        std::vector<BinlogEvent> batch;
        if (DatabaseError e = database_.read_binlog(context_.node(), at, 256, &batch);
            e != DatabaseError::none) {
            return describe(e, at);
        }
        if (batch.empty()) break;
        for (BinlogEvent& event : batch) {
            if (event.position >= to) {
                at = to;
                break;
            }
            at = event.next;
            if (event.table == table_ && chunk_of(event.key()) == index)
                events.push_back(std::move(event));
        }
    }
    auto apply = [rows](const BinlogEvent& event, const std::optional<Row>& image) {
        if (image) {
            (*rows)[event.key()] = *image;
        } else {
            rows->erase(event.key());
        }
    };
    if (undo) {
        for (auto it = events.rbegin(); it != events.rend(); ++it) apply(*it, it->before);
    } else {
        for (const BinlogEvent& event : events) apply(event, event.after);
    }
    return std::nullopt;
}

std::optional<std::string> CdcSourceReader::finish_chunk(RecordBatch* out) {
    ChunkRead read = std::move(*reading_);
    reading_.reset();
    const int32_t index = chunks_[read.chunk].index;
    BinlogPosition high;
    if (DatabaseError e = database_.current_position(context_.node(), &high);
        e != DatabaseError::none) {
        return describe(e, high);
    }
    // The rows at H: corrected with every change of the chunk's keys between the watermarks.
    if (auto error = replay_chunk_events(index, read.low, high, false, &read.rows)) return error;
    Chunk& chunk = chunks_[read.chunk];
    if (read.as_of) {
        // Read again for a restored "read at H" chunk: undo the changes since H to get the same
        // rows back.
        if (auto error = replay_chunk_events(index, *read.as_of, high, true, &read.rows))
            return error;
        chunk.rows = std::move(read.rows);
        emit_chunk(chunk, out);
        return std::nullopt;
    }
    chunk.status = ChunkStatus::read;
    chunk.position = high;
    chunk.rows = std::move(read.rows);
    chunk.captured_by = 0;
    chunk.releasable = false;
    return std::nullopt;
}

std::optional<std::string> CdcSourceReader::read_binlog(size_t max_records, RecordBatch* out) {
    if (chunks_.empty()) return std::nullopt;
    BinlogPosition from = chunks_.front().position;
    for (const Chunk& chunk : chunks_) from = std::min(from, chunk.position);
    if (!binlog_started_) {
        binlog_started_ = true;
        const sim::Time now = context_.world().now();
        context_.observer().connector_event(now, now, lane_, "cdc.binlog_switch",
                                            "binlog from " + from.describe());
    }
    std::vector<BinlogEvent> events;
    if (DatabaseError e = database_.read_binlog(context_.node(), from, max_records, &events);
        e != DatabaseError::none) {
        return describe(e, from);
    }
    for (const BinlogEvent& event : events) {
        if (event.table == table_) {
            auto slot = chunk_slot_.find(chunk_of(event.key()));
            if (slot != chunk_slot_.end() && event.position >= chunks_[slot->second].position) {
                switch (event.kind) {
                    case ChangeKind::insert:
                        out->push_back(
                            to_record(*event.after, RowKind::insert, event.after->version));
                        break;
                    case ChangeKind::update:
                        out->push_back(to_record(*event.before, RowKind::update_before,
                                                 event.before->version));
                        out->push_back(
                            to_record(*event.after, RowKind::update_after, event.after->version));
                        break;
                    case ChangeKind::remove:
                        out->push_back(to_record(*event.before, RowKind::delete_row,
                                                 event.before->version + 1));
                        break;
                }
            }
        }
        for (Chunk& chunk : chunks_) {
            if (chunk.position <= event.position) chunk.position = event.next;
        }
    }
    return std::nullopt;
}

}  // namespace eosim::engine
