#pragma once
// The source contract, after Flink's SourceReader: what a source task asks of its connector. The
// task owns the loop (when to poll, backpressure, barriers); the reader owns its splits and their
// positions.
//
// - `restore` gets the snapshots of every subtask of the source vertex (the union of split states,
//   so the same code serves a change of parallelism) and keeps what belongs to this subtask;
// - `poll` reads up to `max_records` available records into `out`. An error it cannot ride out
//   (the outside system refuses, the position it must resume from is gone) is returned as a message
//   and fails the task; it never skips input silently;
// - `reached_end` once a bounded input is fully read (the task then sends end-of-data);
//   `skip_to_end` puts a bounded input there at once (a subtask restored finished);
// - `snapshot` at the checkpoint barrier: what a restore needs to resume exactly there;
// - `add_offsets` what the checkpoint covers, for the oracles (the input prefix per split);
// - `checkpoint_complete` is a best-effort notification (the reader may announce protocol points);
// - `watermark` the subtask's current watermark when the vertex has a watermark strategy (the
//   per-split state behind it goes into `snapshot`).
//
// Connectors implement it; `make_source_reader` (source_reader.cpp) builds the one a vertex names,
// so the runtime includes only this header.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/run_observer.h"

namespace eosim::sim::external {
class KafkaCluster;
class Database;
}  // namespace eosim::sim::external

namespace eosim::engine {

class SourceReader {
public:
    virtual ~SourceReader() = default;
    virtual void restore(const std::vector<std::string>& snapshots) = 0;
    // Returns an error message when the task must fail; std::nullopt otherwise.
    virtual std::optional<std::string> poll(size_t max_records, RecordBatch* out) = 0;
    virtual bool reached_end() const = 0;
    // A subtask deployed finished (FLIP-147: the restored checkpoint recorded it so) reads nothing:
    // every split of a bounded input at its end, so that a later savepoint records that.
    virtual void skip_to_end() {}
    // After `restore`: a split that no snapshot named (its subtask had finished, FLIP-147, and a
    // new deployment restores the checkpoint at another parallelism or by uid) resumes at the
    // restored checkpoint's offset for it, when `checkpointed` has one.
    virtual void resume_unrestored_at(const SourceOffsets& /*checkpointed*/) {}
    virtual std::string snapshot(int64_t checkpoint_id) = 0;
    virtual void add_offsets(SourceOffsets* offsets) const = 0;
    virtual void checkpoint_complete(int64_t /*checkpoint_id*/) {}
    // Event time (a vertex with `watermarks` only): the subtask's watermark over its splits and
    // whether they are all idle, at `now`; std::nullopt when the vertex has no watermark strategy.
    struct Watermark {
        int64_t watermark = kMinWatermark;
        bool idle = false;
    };
    virtual std::optional<Watermark> watermark(sim::Time /*now*/) const { return std::nullopt; }
};

struct SourceServices {
    sim::external::KafkaCluster* kafka = nullptr;
    sim::external::Database* database = nullptr;  // the CDC source's database
    const SourceOffsets* input_end_offsets = nullptr;
};

// `context` is the task (the same narrow view a sink gets: world, node, subtask, observer, fail).
std::unique_ptr<SourceReader> make_source_reader(const VertexSpec& vertex, SinkContext& context,
                                                 const SourceServices& services, int32_t subtask);

}  // namespace eosim::engine
