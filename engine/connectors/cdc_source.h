#pragma once
// The CDC source reader, after Flink CDC's MySqlSource with its incremental snapshot: a table is
// read first as a snapshot, in chunks, then from its binlog, and the whole changelog comes out
// exactly once across failures.
//
// - Chunks: the primary-key space is cut into chunks of `chunk_size` keys over [0, chunk_key_end)
//   (the first chunk unbounded below, the last unbounded above, so every key has a chunk); chunk i
//   belongs to subtask i mod parallelism. Every subtask computes the same chunks from the job
//   alone.
// - A chunk read (over several polls, `fetch_size` rows per read, so the table changes meanwhile):
//   low watermark L = the binlog position when it starts; the rows of its key range, page by page;
//   high watermark H = the position when the last page is read; then the binlog events between L
//   and H for its keys are applied to the rows read (after images replace, deletes remove), so the
//   chunk's rows are the table's content at H for those keys.
// - Emission waits for a completed checkpoint: the chunk's H goes into the next checkpoint (state
//   "read at H") and its rows are emitted, all at once as inserts, only once that checkpoint is
//   complete. So every attempt that ever emits a chunk emits the same rows (those at H): an attempt
//   restored from a checkpoint that holds "read at H" reads the chunk again and undoes the binlog
//   events after H (before images) to get the table at H back. Without that wait, a chunk read by a
//   lost attempt after the last checkpoint is read again at a later H', and a row the lost attempt
//   emitted and the table deleted between H and H' is never retracted: an idempotent sink keeps it
//   forever (eosim found this: mysql-upsert-no-version-guard failed exactly_once_output and
//   mirror). Flink CDC avoids it differently: its snapshot records are emitted as the split
//   finishes and the split is acknowledged to the enumerator; eosim's wait is the simplest rule
//   that makes the replay of a chunk deterministic.// - A binlog position that was purged
//   (retention) fails the task with a message naming the position and the oldest retained file; the
//   job then fails for good once its restarts are used up. It never skips the purged changes
//   silently.
// - Bounded: the input ends when the database is read-only (the workload is done) and every chunk
//   is finished and read to the binlog's end.
//
// Where eosim differs from Flink CDC: Flink's split enumerator (on the JobManager) assigns chunks
// on demand and, after all of them, hands one binlog split (with every chunk's high watermark) to
// one reader. eosim has no source coordinator, so chunks are assigned statically and each subtask
// continues on the binlog for the keys of its own chunks. Per key the output is the same (and stays
// on one channel, so a key's changes keep their order); the binlog is read once per subtask.
// Versions: a row's `version` column travels as the record's version (a delete carries the deleted
// row's version + 1, the version of the delete itself in the workload's per-key sequence).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/connectors/source_reader.h"
#include "sim/external/database.h"

namespace eosim::engine {

class CdcSourceReader final : public SourceReader {
public:
    CdcSourceReader(const VertexSpec& vertex, SinkContext& context,
                    sim::external::Database& database, int32_t subtask);

    void restore(const std::vector<std::string>& snapshots) override;
    std::optional<std::string> poll(size_t max_records, RecordBatch* out) override;
    bool reached_end() const override;
    std::string snapshot(int64_t checkpoint_id) override;
    // ("cdc:<table>", chunk) -> the chunk's binlog position packed as file * 2^40 + offset; -1
    // while unfinished.
    void add_offsets(SourceOffsets* offsets) const override;
    void checkpoint_complete(int64_t checkpoint_id) override;

    int32_t chunk_count() const { return chunk_count_; }

private:
    enum class ChunkStatus : uint8_t { unread, read, emitted };
    struct Chunk {
        int32_t index = 0;
        ChunkStatus status = ChunkStatus::unread;
        sim::external::BinlogPosition
            position;  // read: its H; emitted: where its keys' binlog reading resumes
        bool finished() const { return status == ChunkStatus::emitted; }
        // Not persisted: the rows read (status read, this attempt), the checkpoint that captured H
        // (0: none yet), and whether that checkpoint is complete (or the chunk came from a
        // restore).
        std::optional<std::map<int64_t, sim::external::Row>> rows;
        int64_t captured_by = 0;
        bool releasable = false;
        sim::Time read_started;  // for the timeline
    };
    struct ChunkRead {
        size_t chunk = 0;  // into chunks_
        sim::external::BinlogPosition low;
        std::optional<int64_t> after_key;
        std::map<int64_t, sim::external::Row> rows;
        std::optional<sim::external::BinlogPosition>
            as_of;  // a restored "read at H" chunk: rebuild the rows at H
    };
    std::optional<int64_t> chunk_from(int32_t index) const;
    std::optional<int64_t> chunk_to(int32_t index) const;
    int32_t chunk_of(int64_t key) const;
    bool snapshot_done() const;
    std::optional<std::string> read_chunk_page(RecordBatch* out);
    std::optional<std::string> finish_chunk(RecordBatch* out);
    // Applies (forward) or undoes (backward, with before images) the chunk's events in [from, to).
    std::optional<std::string> replay_chunk_events(int32_t index,
                                                   sim::external::BinlogPosition from,
                                                   sim::external::BinlogPosition to, bool undo,
                                                   std::map<int64_t, sim::external::Row>* rows);
    void emit_chunk(Chunk& chunk, RecordBatch* out);
    std::optional<std::string> read_binlog(size_t max_records, RecordBatch* out);
    std::string describe(sim::external::DatabaseError error,
                         sim::external::BinlogPosition at) const;
    void check_live_after_point() const;  // an invariant after each announcement

    SinkContext& context_;
    sim::external::Database& database_;
    std::string table_;
    int64_t chunk_size_;
    int64_t fetch_size_;
    int32_t chunk_count_ = 1;
    std::vector<Chunk> chunks_;             // this subtask's, by index
    std::map<int32_t, size_t> chunk_slot_;  // chunk index -> position in chunks_
    std::optional<ChunkRead> reading_;
    bool binlog_started_ = false;
    std::set<int64_t> binlog_snapshots_;  // checkpoints whose snapshot held the binlog phase
    std::string lane_;                    // timeline lane: "cdc source-<subtask>"
};

}  // namespace eosim::engine
