// A two-phase-commit file sink over the object store, after Flink's FileSink (StreamingFileSink),
// and three buggy forms of it, each from a real ticket; registered for
// tests/testkit/test_connector_bugs.cpp (the list of buggy sinks and their twins).
//
// The correct sink ("bugs_staged_files"): at pre-commit it writes the records before the barrier as
// one staged part file "staged/part-<attempt id>-<counter>" (the counter grows within an attempt,
// the attempt id makes a later attempt's and a zombie's names their own) and keeps (checkpoint,
// name) in its state; checkpoint_complete(N) commits every pending file of a checkpoint up to N by
// copying it to "out/<name>" (a copy that lands twice, or late, writes the same bytes); open()
// commits every pending file of the states it is given and deletes nothing. A call that fails or
// times out is retried (a staged put again before the pre-commit answers; a commit at the next
// notification or restore). What a reader sees: every object under "out/".
#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/connectors/sink_points.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/object_store.h"

namespace eosim::testkit {
namespace {

using engine::Record;
using sim::external::ObjectError;

enum class FileSlip {
    none,
    // FLINK-10005 (apache/flink#6466): a bucket with no pending file left the state and started its
    // part counter at 0 again, so a later part file got the name of a committed one and replaced
    // it.
    counter_resets_when_idle,
    // FLINK-13940 (apache/flink#9597, FLINK-13941): recovery cleaned up the subtask's staged files,
    // among them those the restored state still had to commit; the commit then found nothing and
    // took it for done.
    cleanup_deletes_restored,
    // apache/iceberg#1185 (review of IcebergFilesCommitter) and FLINK-2008 (apache/flink#895: later
    // notifications subsume missed ones): notify(N) commits only checkpoint N's files and takes N
    // for the last committed checkpoint, forgetting the files of one whose notification was lost.
    commit_only_notified,
};

struct PendingFile {
    int64_t checkpoint = 0;
    std::string name;
};

std::string staged_state_text(const std::vector<PendingFile>& pending) {
    std::string out;
    for (const PendingFile& p : pending) out += std::to_string(p.checkpoint) + " " + p.name + "\n";
    return out;
}

std::vector<PendingFile> staged_state_files(const std::string& state) {
    std::vector<PendingFile> out;
    std::istringstream in(state);
    PendingFile p;
    while (in >> p.checkpoint >> p.name) out.push_back(p);
    return out;
}

class StagedFileSink final : public engine::Sink {
public:
    StagedFileSink(FileSlip slip, engine::SinkContext& context, sim::external::ObjectStore& store)
        : slip_(slip), context_(context), store_(store) {}

    bool open(int64_t restored_checkpoint_id,
              const std::vector<engine::RestoredSinkState>& restored) override {
        for (const engine::RestoredSinkState& s : restored) {
            for (PendingFile& p : staged_state_files(s.state)) pending_.push_back(std::move(p));
        }
        if (slip_ == FileSlip::cleanup_deletes_restored && !clean_up_staged())
            return fail("cannot list the staged files");
        if (!commit_up_to(restored_checkpoint_id))
            return fail("cannot commit the restored part files");
        engine::announce_point(context_, engine::sink_points::kRecovered, restored_checkpoint_id);
        return true;
    }
    void write(const engine::RecordBatch& records) override {
        buffer_.insert(buffer_.end(), records.begin(), records.end());
    }
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        if (!buffer_.empty()) {
            const std::string name =
                "part-" + context_.attempt_id() + "-" + std::to_string(counter_++);
            if (store_.put(context_.node(), "staged/" + name, bytes_of(buffer_)).error !=
                ObjectError::none) {
                *error = "the staged part file " + name + " was not written";
                return false;
            }
            buffer_.clear();
            pending_.push_back(PendingFile{checkpoint_id, name});
        }
        *state = staged_state_text(pending_);
        engine::announce_point(context_, engine::sink_points::kPrecommitted, checkpoint_id);
        return true;
    }
    void checkpoint_complete(int64_t checkpoint_id) override {
        if (commit_up_to(checkpoint_id))
            engine::announce_point(context_, engine::sink_points::kCommitted, checkpoint_id);
    }
    bool settled() const override { return pending_.empty(); }

private:
    static std::string bytes_of(const std::vector<Record>& records) {
        std::string out;
        for (const Record& r : records)
            out += std::to_string(r.key) + ":" + std::to_string(r.value) + "\n";
        return out;
    }
    bool fail(const std::string& reason) {
        context_.fail(reason);
        return false;
    }
    // Commits the pending files of checkpoints up to `checkpoint_id` (only that one's, with the
    // slip), in order; stops at the first that fails (it stays pending). False when one failed.
    bool commit_up_to(int64_t checkpoint_id) {
        while (!pending_.empty() && pending_.front().checkpoint <= checkpoint_id) {
            auto it = pending_.begin();
            if (slip_ == FileSlip::commit_only_notified && it->checkpoint < checkpoint_id) {
                pending_.erase(it);  // "committed up to N" is taken to mean N's own files only
                continue;
            }
            const ObjectError error =
                store_.copy(context_.node(), "staged/" + it->name, "out/" + it->name).error;
            const bool taken_for_done =
                error == ObjectError::not_found && slip_ == FileSlip::cleanup_deletes_restored;
            if (error != ObjectError::none && !taken_for_done) return false;
            pending_.erase(it);
        }
        if (pending_.empty() && slip_ == FileSlip::counter_resets_when_idle) counter_ = 0;
        return true;
    }
    // The slip of FLINK-13940: every staged file of this subtask goes, restored or not.
    bool clean_up_staged() {
        const auto listed = store_.list(context_.node(), "staged/part-attempt-");
        if (listed.error != ObjectError::none) return false;
        const std::string mine = "-subtask-" + std::to_string(context_.subtask()) + "-";
        for (const auto& object : listed.objects) {
            if (object.path.find(mine) != std::string::npos)
                store_.remove(context_.node(), object.path);
        }
        return true;
    }

    FileSlip slip_;
    engine::SinkContext& context_;
    sim::external::ObjectStore& store_;
    std::vector<Record> buffer_;        // records since the last pre-commit
    std::vector<PendingFile> pending_;  // staged, not yet committed, by checkpoint
    int64_t counter_ = 0;
};

class StagedFileConfig final : public engine::SinkConfig {
public:
    explicit StagedFileConfig(FileSlip slip) : slip_(slip) {}
    std::unique_ptr<engine::Sink> make(engine::SinkContext& context,
                                       const engine::OutsideSystems& systems,
                                       const engine::RuntimeConfig&) const override {
        return std::make_unique<StagedFileSink>(slip_, context, *systems.objects);
    }
    std::vector<Record> read_output(const engine::OutsideSystems& systems) const override {
        std::vector<Record> out;
        for (const auto& [path, bytes] : systems.objects->objects()) {
            if (path.rfind("out/", 0) != 0) continue;
            std::istringstream in(bytes);
            Record r;
            char colon = 0;
            while (in >> r.key >> colon >> r.value) out.push_back(r);
        }
        return out;
    }
    std::vector<std::string_view> announced_points() const override {
        return {engine::sink_points::kPrecommitted, engine::sink_points::kCommitted,
                engine::sink_points::kRecovered};
    }

private:
    FileSlip slip_;
};

engine::SinkKind staged_file_kind(const std::string& name, FileSlip slip) {
    return engine::SinkKind{
        name, "a staged-file sink (tests/testkit/staged_file_sink.cpp)",
        [slip](engine::SinkOptions& options, const std::string&, const engine::SinkWorld& world) {
            if (!world.has_system("objects"))
                options.fail("", "a world with the object store \"objects\"");
            return std::make_shared<const StagedFileConfig>(slip);
        }};
}

EOSIM_REGISTER_SINK(staged_file_kind("bugs_staged_files", FileSlip::none));
EOSIM_REGISTER_SINK(staged_file_kind("bugs_files_counter_resets",
                                     FileSlip::counter_resets_when_idle));
EOSIM_REGISTER_SINK(staged_file_kind("bugs_files_cleanup_deletes_restored",
                                     FileSlip::cleanup_deletes_restored));
EOSIM_REGISTER_SINK(staged_file_kind("bugs_files_commit_only_notified",
                                     FileSlip::commit_only_notified));

}  // namespace
}  // namespace eosim::testkit
