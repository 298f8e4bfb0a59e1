#include "file_sink.h"

#include <algorithm>
#include <sstream>

namespace file_sink_example {

namespace {

using eosim::engine::Record;
using eosim::engine::RecordBatch;
using eosim::sim::external::ObjectError;
using eosim::sim::external::ObjectStore;

struct PendingFile {
    int64_t checkpoint_id = 0;
    int64_t upload_id = -1;
    std::string path;
};

class FileSink final : public eosim::engine::Sink {
public:
    FileSink(const FileSinkOptions& options, eosim::engine::SinkContext& context,
             ObjectStore& store, const eosim::engine::RuntimeConfig& runtime)
        : options_(options), context_(context), store_(store), runtime_(runtime) {}

    // Every state given: its own, and on a scale-in the removed subtasks' (their pending files are
    // committed here, not lost).
    bool open(int64_t restored_checkpoint_id,
              const std::vector<eosim::engine::RestoredSinkState>& restored) override {
        restored_ = restored_checkpoint_id;
        for (const auto& from : restored) {
            std::istringstream in(from.state);
            PendingFile p;
            while (in >> p.checkpoint_id >> p.upload_id >> p.path) pending_.push_back(p);
        }
        std::stable_sort(pending_.begin(), pending_.end(),
                         [](const PendingFile& a, const PendingFile& b) {
                             return a.checkpoint_id < b.checkpoint_id;
                         });
        // Everything in the restored state belongs to a completed checkpoint: commit it.
        commit_target_ = restored_checkpoint_id;
        if (!commit_up_to(commit_target_)) schedule_retry();
        return true;
    }

    void write(const RecordBatch& records) override {
        if (records.empty()) return;
        if (in_progress_.upload_id < 0 && !start_file()) return;
        std::string bytes;
        for (const Record& r : records)
            bytes += std::to_string(r.key) + " " + std::to_string(r.value) + "\n";
        const auto result = store_.upload_part(context_.node(), in_progress_.upload_id,
                                               next_part_++, std::move(bytes));
        if (result.error != ObjectError::none && write_error_.empty()) {
            write_error_ =
                std::string("upload part failed: ") + eosim::sim::external::to_string(result.error);
        }
    }

    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        if (!write_error_.empty()) {
            *error = write_error_;
            return false;
        }
        if (in_progress_.upload_id >= 0) {
            in_progress_.checkpoint_id = checkpoint_id;
            pending_.push_back(in_progress_);
            in_progress_ = PendingFile{};
        }
        if (options_.commit_at_pre_commit) {
            // THE SLIP: committing now, before the checkpoint is known to be complete.
            if (!commit_up_to(checkpoint_id)) schedule_retry();
        }
        std::ostringstream out;
        for (const PendingFile& p : pending_)
            out << p.checkpoint_id << " " << p.upload_id << " " << p.path << "\n";
        *state = out.str();
        return true;
    }

    void checkpoint_complete(int64_t checkpoint_id) override {
        if (checkpoint_id <= commit_target_) return;
        commit_target_ = checkpoint_id;
        if (!commit_up_to(checkpoint_id)) schedule_retry();
    }

    bool settled() const override { return pending_.empty(); }

private:
    bool start_file() {
        const std::string path = options_.path + "part-" + std::to_string(context_.subtask()) +
                                 "-" + std::to_string(restored_) + "-" +
                                 std::to_string(++files_started_);
        const auto result = store_.initiate_upload(context_.node(), path);
        if (result.error != ObjectError::none) {
            if (write_error_.empty())
                write_error_ = std::string("cannot start ") + path + ": " +
                               eosim::sim::external::to_string(result.error);
            return false;
        }
        in_progress_ = PendingFile{0, result.upload_id, path};
        next_part_ = 1;
        return true;
    }

    // Commits pending files up to `checkpoint_id`, in order; false when one must be retried.
    bool commit_up_to(int64_t checkpoint_id) {
        while (!pending_.empty() && pending_.front().checkpoint_id <= checkpoint_id) {
            const PendingFile& p = pending_.front();
            const auto result = store_.complete_upload(context_.node(), p.upload_id);
            // Unreachable, write errors, or a timeout (the completion may have applied, may still
            // land, or may be lost): try again; a retry of one that applied finds no such upload.
            if (result.error == ObjectError::unavailable ||
                result.error == ObjectError::write_failed)
                return false;
            if (result.error == ObjectError::timeout && !options_.timeout_as_committed)
                return false;
            if (result.error == ObjectError::no_such_upload) {
                // Committed before (by an earlier incarnation), or lost.
                const auto existing = store_.get(context_.node(), p.path);
                if (existing.error == ObjectError::unavailable) return false;
                if (existing.error != ObjectError::none) {
                    context_.observer().likely_data_loss(context_.world().now(), p.path,
                                                         "upload gone, object missing");
                }
            }
            pending_.erase(pending_.begin());
        }
        return true;
    }

    void schedule_retry() {
        if (retry_scheduled_) return;
        retry_scheduled_ = true;
        context_.after(runtime_.commit_retry_delay, [this] {
            retry_scheduled_ = false;
            if (!commit_up_to(commit_target_)) schedule_retry();
        });
    }

    const FileSinkOptions& options_;
    eosim::engine::SinkContext& context_;
    ObjectStore& store_;
    const eosim::engine::RuntimeConfig& runtime_;
    int64_t restored_ = 0;
    int64_t files_started_ = 0;
    PendingFile in_progress_;
    int32_t next_part_ = 1;
    std::vector<PendingFile> pending_;  // ascending checkpoint ids
    std::string write_error_;
    int64_t commit_target_ = 0;
    bool retry_scheduled_ = false;
};

}  // namespace

std::unique_ptr<eosim::engine::Sink> FileSinkConfig::make(
    eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
    const eosim::engine::RuntimeConfig& runtime) const {
    return std::make_unique<FileSink>(options_, context, *systems.objects, runtime);
}

std::vector<Record> FileSinkConfig::read_output(
    const eosim::engine::OutsideSystems& systems) const {
    std::vector<Record> out;
    for (const auto& [path, bytes] : systems.objects->objects()) {
        if (path.rfind(options_.path, 0) != 0) continue;
        std::istringstream in(bytes);
        Record r;
        while (in >> r.key >> r.value) out.push_back(r);
    }
    return out;
}

eosim::engine::SinkKind file_sink_kind(const std::string& name, bool commit_at_pre_commit,
                                       bool timeout_as_committed) {
    return eosim::engine::SinkKind{
        name,
        "Flink-FileSink-style part files in the object store, committed on checkpoint completion (example)",
        [commit_at_pre_commit, timeout_as_committed](eosim::engine::SinkOptions& options,
                                                     const std::string&,
                                                     const eosim::engine::SinkWorld& world) {
            // Asking for the object store makes the run build it (and the testkit fault it).
            if (!world.has_system("objects"))
                options.fail("path", "a world with the object store \"objects\"");
            FileSinkOptions o;
            o.path = options.string("path", "out/");
            if (o.path.find(' ') != std::string::npos)
                options.fail("path", "a prefix without spaces, found \"" + o.path + "\"");
            o.commit_at_pre_commit = commit_at_pre_commit;
            o.timeout_as_committed = timeout_as_committed;
            return std::make_shared<FileSinkConfig>(std::move(o));
        }};
}

}  // namespace file_sink_example
