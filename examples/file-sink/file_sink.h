#pragma once
// A file sink after Flink's FileSink, over the object store (sim/external/object_store.h), written
// the way a sink author outside the project writes one: public headers only.
//
// - Records go into an in-progress part file: a multipart upload, one part per write (invisible
//   until completed). The part's path is chosen when the file starts:
//   "<path>part-<subtask>-<restored checkpoint>-<n>", unique per incarnation lineage.
// - At pre-commit the in-progress file becomes pending: its upload id and path go into the sink's
//   checkpoint state, with every older pending file not yet committed. A write that failed since
//   the last checkpoint fails the checkpoint (never dropped silently).
// - On checkpoint_complete(N) every pending file up to N is committed by completing its upload,
//   in order; a call that cannot reach the store, or that times out (calls that race: it may have
//   applied, may land later, or may be lost), is retried later (SinkContext::after).
// - On open (restore) the pending files of the restored state are committed (their checkpoint
//   completed); an upload that is no longer open was committed before when its object exists,
//   otherwise the data is lost and the sink says so (RunObserver::likely_data_loss). In-progress
//   uploads of a dead incarnation are never completed: invisible, left to the store's lifecycle.
//
// Options: "path" (the prefix of part files, default "out/"). Output shape: appended records (every
// line of every object under the prefix).
//
// `commit_at_pre_commit` is the classic slip of examples/file-sink-buggy: completing the upload
// already at pre-commit, before the checkpoint is known to be complete. `timeout_as_committed`
// (tests/testkit/test_connector_bugs.cpp) takes a completion that timed out for done: when the
// request was lost, so is the file (this example did so until calls could race).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/object_store.h"

namespace file_sink_example {

struct FileSinkOptions {
    std::string path = "out/";
    bool commit_at_pre_commit = false;  // the slip (examples/file-sink-buggy)
    bool timeout_as_committed = false;  // a slip (tests/testkit/test_connector_bugs.cpp)
};

class FileSinkConfig final : public eosim::engine::SinkConfig {
public:
    explicit FileSinkConfig(FileSinkOptions options) : options_(std::move(options)) {}
    std::unique_ptr<eosim::engine::Sink> make(
        eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
        const eosim::engine::RuntimeConfig& runtime) const override;
    std::vector<eosim::engine::Record> read_output(
        const eosim::engine::OutsideSystems& systems) const override;
    std::vector<std::string> claims() const override {
        return {"object store prefix \"" + options_.path + "\""};
    }

private:
    FileSinkOptions options_;
};

// The sink kind `name` (options: "path"); a slip makes a buggy variant.
eosim::engine::SinkKind file_sink_kind(const std::string& name, bool commit_at_pre_commit,
                                       bool timeout_as_committed = false);

}  // namespace file_sink_example
