#pragma once
// The names of the protocol points a sink may announce (engine/connectors/sink_points.h says how
// and where to announce one). Vocabulary: engine/vocabulary/protocol_points.h lists them among
// every protocol point.
#include <string_view>

namespace eosim::engine {

namespace sink_points {
// detail: the checkpoint id. The transaction (or batch, or staged files) of the checkpoint is
// flushed and in the snapshot, not yet committed.
inline constexpr std::string_view kPrecommitted = "sink.precommitted";
// detail: the checkpoint id. Announced after a commit of that checkpoint's data took effect.
inline constexpr std::string_view kCommitted = "sink.committed";
// detail: the restored checkpoint id. After open() committed what the restored state holds and
// cleaned up what an earlier attempt left (lingering transactions, uploads, staged rows).
inline constexpr std::string_view kRecovered = "sink.recovered";
// detail: how many rows or records. Announced after a batch written outside a checkpoint (an
// at-least-once or idempotent sink's flush) took effect.
inline constexpr std::string_view kFlushed = "sink.flushed";

inline constexpr std::string_view kAll[] = {kPrecommitted, kCommitted, kRecovered, kFlushed};
}  // namespace sink_points

}  // namespace eosim::engine
