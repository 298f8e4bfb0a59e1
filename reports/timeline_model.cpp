#include "reports/timeline_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "scenarios/fault_types.h"

namespace eosim::reports {

namespace {

// Lane groups, top to bottom.
constexpr const char* kGroupOrder[] = {"faults",       "checkpoints", "job",    "watermarks",
                                       "transactions", "other",       "oracles"};

int group_rank(const std::string& group) {
    for (size_t i = 0; i < std::size(kGroupOrder); ++i) {
        if (group == kGroupOrder[i]) return static_cast<int>(i);
    }
    return static_cast<int>(std::size(kGroupOrder));
}

// "tm2" < "tm10": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) &&
            std::isdigit(static_cast<unsigned char>(b[j]))) {
            size_t i_end = i;
            size_t j_end = j;
            while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
            while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
            const std::string x = a.substr(i, i_end - i);
            const std::string y = b.substr(j, j_end - j);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            i = i_end;
            j = j_end;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

// Within the faults group: nodes first (the JobManager, then TaskManagers), then shared resources.
int fault_lane_rank(const std::string& label) {
    if (label == "jobmanager") return 0;
    if (label.rfind("tm", 0) == 0) return 1;
    if (label == "network") return 3;
    if (label == "storage") return 4;
    if (label == "kafka") return 5;
    return 2;
}

struct LaneKey {
    std::string group;
    std::string label;
    bool operator<(const LaneKey& o) const {
        if (group_rank(group) != group_rank(o.group))
            return group_rank(group) < group_rank(o.group);
        if (group == "faults" && fault_lane_rank(label) != fault_lane_rank(o.label)) {
            return fault_lane_rank(label) < fault_lane_rank(o.label);
        }
        if (label != o.label) return natural_less(label, o.label);
        return false;
    }
};

// The number in "checkpoint 12", "savepoint 12", "stop-with-savepoint 12: reason"; -1 if there is
// none.
int64_t checkpoint_id(const std::string& detail) {
    size_t i = std::string::npos;
    for (const char* prefix : {"checkpoint ", "savepoint ", "stop-with-savepoint "}) {
        if (detail.rfind(prefix, 0) == 0) i = std::string(prefix).size();
    }
    if (i == std::string::npos || i == detail.size() ||
        !std::isdigit(static_cast<unsigned char>(detail[i])))
        return -1;
    int64_t id = 0;
    for (; i < detail.size() && std::isdigit(static_cast<unsigned char>(detail[i])); ++i)
        id = id * 10 + (detail[i] - '0');
    return id;
}

// "savepoint 12" of "savepoint 12: reason": what the snapshot is called.
std::string snapshot_name(const std::string& detail) { return detail.substr(0, detail.find(':')); }

// "sink-0-7" -> "sink-0": a transactional id without its checkpoint number names the subtask.
std::string transaction_lane(const std::string& id) {
    const size_t dash = id.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == id.size()) return id;
    for (size_t i = dash + 1; i < id.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(id[i]))) return id;
    }
    return id.substr(0, dash);
}

using sim::seconds_text;

class ModelBuilder {
public:
    explicit ModelBuilder(const RunRecord& record) : record_(record) {}

    TimelineModel build() {
        end_ns_ = end_of_run();
        add_faults();
        for (const scenarios::TimelineEvent& e : record_.timeline) add_event(e);
        close_open_spans();
        add_oracles();
        return finish();
    }

private:
    struct PendingBar {
        LaneKey lane;
        TimelineBar bar;
    };
    struct PendingMark {
        LaneKey lane;
        TimelineMark mark;
    };

    // The run's virtual end; effects that outlast it (a long slow link) are cut there. Without
    // figures (a record made by hand), the last thing that happened.
    int64_t end_of_run() const {
        int64_t end = static_cast<int64_t>(std::llround(record_.figures.virtual_seconds * 1e9));
        for (const FaultRecord& f : record_.faults) end = std::max(end, f.at_ns);
        for (const scenarios::TimelineEvent& e : record_.timeline) end = std::max(end, e.at_ns);
        if (record_.figures.virtual_seconds <= 0) {
            for (const FaultRecord& f : record_.faults) end = std::max(end, f.end_ns);
            for (const scenarios::TimelineEvent& e : record_.timeline)
                end = std::max(end, e.end_ns);
        }
        return std::max<int64_t>(end, 1'000'000);
    }

    void bar(LaneKey lane, int64_t start, int64_t end, bool open_end, std::string style,
             std::string label) {
        TimelineBar b;
        b.start_ns = start;
        b.end_ns = std::max(start, end);
        b.open_end = open_end;
        b.style = std::move(style);
        b.label = std::move(label);
        bars_.push_back({std::move(lane), std::move(b)});
    }

    void mark(LaneKey lane, int64_t at, std::string style, std::string label) {
        TimelineMark m;
        m.at_ns = at;
        m.style = std::move(style);
        m.label = std::move(label);
        marks_.push_back({std::move(lane), std::move(m)});
    }

    void add_faults() {
        for (const FaultRecord& f : record_.faults) {
            // The kind's lane (scenarios/fault_types.h); a kind this process has not registered (a
            // record from another build) goes in the "faults" lane.
            const scenarios::FaultType* type = scenarios::FaultTypes::global().find(f.kind);
            const std::string lane_of_kind = type == nullptr ? "faults" : type->timeline_lane();
            std::vector<std::string> lanes =
                lane_of_kind.empty() ? f.nodes : std::vector<std::string>{lane_of_kind};
            if (lanes.empty()) lanes = {"faults"};
            const std::string label = seconds_text(f.at_ns) + " " + f.kind + ": " + f.action;
            for (const std::string& lane : lanes) {
                if (f.skipped) {
                    const bool says_so = f.action.find("skipped") != std::string::npos;
                    mark({"faults", lane}, f.at_ns, "fault-skipped",
                         label + (says_so ? "" : " (skipped)"));
                } else if (f.end_ns < 0) {
                    bar({"faults", lane}, f.at_ns, end_ns_, true, "fault-" + f.kind, label);
                } else if (f.end_ns == f.at_ns) {
                    mark({"faults", lane}, f.at_ns, "fault-" + f.kind, label);
                } else {
                    bar({"faults", lane}, f.at_ns, std::min(f.end_ns, end_ns_), f.end_ns > end_ns_,
                        "fault-" + f.kind, label + " (until " + seconds_text(f.end_ns) + ")");
                }
            }
        }
    }

    void add_event(const scenarios::TimelineEvent& e) {
        if (e.lane == "faults")
            return;  // drawn from the fault records, which know when each fault ends
        const std::string label =
            seconds_text(e.at_ns) + " " + e.what + (e.detail.empty() ? "" : ": " + e.detail);
        if (e.what.rfind("checkpoint.", 0) == 0) return add_checkpoint(e, label);
        if (e.what.rfind("txn.", 0) == 0) return add_transaction(e, label);
        if (e.what == "deployment") {  // a deployment's span, v1, v2, ... (scenarios/job_history.h)
            return bar({"job", "deployments"}, e.at_ns, e.end_ns >= 0 ? e.end_ns : end_ns_,
                       e.end_ns < 0, "deployment", label);
        }
        if (e.lane == "job") {
            if (e.what == "failover") abandon_checkpoints(e.at_ns);
            std::string style = e.what;
            if (style == "job.finished") style = "job-finished";
            if (style == "job.suspended") style = "job-suspended";
            if (style == "job.failed") style = "job-failed";
            return mark({"job", "job"}, e.at_ns, style, label);
        }
        if (e.what == "watermark") {  // a vertex's watermark line: one span per value shown
            if (e.end_ns >= 0)
                return bar({"watermarks", e.lane}, e.at_ns, e.end_ns, false, "watermark", label);
            return bar({"watermarks", e.lane}, e.at_ns, end_ns_, true, "watermark", label);
        }
        if (e.end_ns >= 0) return bar({"other", e.lane}, e.at_ns, e.end_ns, false, "other", label);
        mark({"other", e.lane}, e.at_ns, "other", label);
    }

    void add_checkpoint(const scenarios::TimelineEvent& e, const std::string& label) {
        const LaneKey lane{"checkpoints", "checkpoints"};
        const int64_t id = checkpoint_id(e.detail);
        if (e.what == "checkpoint.triggered") {
            if (id >= 0) checkpoints_[id] = e.at_ns;
            return;
        }
        const bool completed = e.what == "checkpoint.completed";
        const std::string style = completed ? "checkpoint-completed" : "checkpoint-aborted";
        auto it = checkpoints_.find(id);
        if (it != checkpoints_.end()) {
            bar(lane, it->second, e.at_ns, false, style,
                snapshot_name(e.detail) + " triggered at " + seconds_text(it->second) + ", " +
                    (completed ? "completed" : "aborted") + " at " + label);
            checkpoints_.erase(it);
        }
        mark(lane, e.at_ns, style, label);
    }

    void add_transaction(const scenarios::TimelineEvent& e, const std::string& label) {
        const std::string id = e.detail.substr(0, e.detail.find(':'));
        const LaneKey lane{"transactions", "txn " + transaction_lane(id)};
        const std::string what = e.what.substr(4);  // after "txn."
        if (what == "begun") {
            close_transaction(id, e.at_ns, "txn-abandoned", "begun again");
            transactions_[id] = OpenTransaction{lane, e.at_ns, -1};
            return;
        }
        if (what == "precommitted") {
            if (auto it = transactions_.find(id); it != transactions_.end())
                it->second.precommitted_ns = e.at_ns;
            mark(lane, e.at_ns, "txn-precommitted", label);
            return;
        }
        std::string style = "txn-aborted";
        if (what == "committed") style = "txn-committed";
        if (what == "lost") style = "txn-lost";
        const bool closed = close_transaction(id, e.at_ns, style, what);
        if (!closed || style == "txn-lost") mark(lane, e.at_ns, style, label);
    }

    // A failover drops the checkpoints in flight: they end there, neither completed nor aborted.
    void abandon_checkpoints(int64_t at) {
        for (const auto& [id, triggered] : checkpoints_) {
            bar({"checkpoints", "checkpoints"}, triggered, at, false, "checkpoint-abandoned",
                "checkpoint " + std::to_string(id) + " triggered at " + seconds_text(triggered) +
                    ", dropped by the failover at " + seconds_text(at));
        }
        checkpoints_.clear();
    }

    bool close_transaction(const std::string& id, int64_t at, const std::string& style,
                           const std::string& how) {
        auto it = transactions_.find(id);
        if (it == transactions_.end()) return false;
        const OpenTransaction& t = it->second;
        std::string label = "transaction " + id + ": begun " + seconds_text(t.begun_ns);
        if (t.precommitted_ns >= 0) label += ", pre-committed " + seconds_text(t.precommitted_ns);
        label += ", " + how + " " + seconds_text(at);
        bar(t.lane, t.begun_ns, at, false, style, std::move(label));
        transactions_.erase(it);
        return true;
    }

    void close_open_spans() {
        for (const auto& [id, triggered] : checkpoints_) {
            bar({"checkpoints", "checkpoints"}, triggered, end_ns_, true, "checkpoint-pending",
                "checkpoint " + std::to_string(id) + " triggered at " + seconds_text(triggered) +
                    ", neither completed nor aborted");
        }
        checkpoints_.clear();
        // Open at the end, as the run knows it; when the record's timeline lost its latest
        // transaction ends (timeline_essential_cut), its end is unknown, not "open".
        const bool cut = record_.timeline_essential_cut > 0;
        for (const auto& [id, t] : transactions_) {
            std::string label = "transaction " + id + ": begun " + seconds_text(t.begun_ns);
            if (t.precommitted_ns >= 0)
                label += ", pre-committed " + seconds_text(t.precommitted_ns);
            bar(t.lane, t.begun_ns, end_ns_, true, cut ? "txn-unknown" : "txn-open",
                label +
                    (cut ? ": its end is among the events the record left out (replay the seed to see it)"
                         : ", still open at the end of the run"));
        }
        transactions_.clear();
    }

    void add_oracles() {
        for (const scenarios::OracleVerdict& v : record_.verdicts) {
            if (v.passed) continue;
            const bool expected = !record_.expect.pass && record_.expect.violation == v.oracle;
            mark({"oracles", "oracles"}, end_ns_, expected ? "oracle-expected" : "oracle-failed",
                 std::string(v.oracle) + (expected ? " (expected) " : " ") + "fired: " + v.message);
        }
        if (record_.status == RunStatus::error)
            mark({"oracles", "oracles"}, end_ns_, "run-error", record_.reason);
    }

    TimelineModel finish() {
        std::vector<LaneKey> keys;
        for (const PendingBar& b : bars_) keys.push_back(b.lane);
        for (const PendingMark& m : marks_) keys.push_back(m.lane);
        std::sort(keys.begin(), keys.end());
        keys.erase(
            std::unique(keys.begin(), keys.end(),
                        [](const LaneKey& a, const LaneKey& b) { return !(a < b) && !(b < a); }),
            keys.end());
        auto index_of = [&keys](const LaneKey& key) {
            return static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), key) -
                                       keys.begin());
        };
        TimelineModel model;
        model.end_ns = end_ns_;
        for (const LaneKey& key : keys)
            model.lanes.push_back(TimelineLane{key.label, key.group, 1});
        // Bars by start (stable: ties keep recording order), each to the first row of its lane free
        // by then.
        std::stable_sort(bars_.begin(), bars_.end(), [](const PendingBar& a, const PendingBar& b) {
            return a.bar.start_ns < b.bar.start_ns;
        });
        std::vector<std::vector<int64_t>> row_ends(keys.size());
        for (PendingBar& b : bars_) {
            b.bar.lane = index_of(b.lane);
            std::vector<int64_t>& ends = row_ends[b.bar.lane];
            size_t row = 0;
            while (row < ends.size() && ends[row] > b.bar.start_ns) ++row;
            if (row == ends.size()) ends.push_back(0);
            ends[row] = std::max(b.bar.end_ns, b.bar.start_ns + 1);
            b.bar.row = static_cast<int>(row);
            model.lanes[b.bar.lane].rows =
                std::max(model.lanes[b.bar.lane].rows, static_cast<int>(row) + 1);
            model.bars.push_back(std::move(b.bar));
        }
        for (PendingMark& m : marks_) {
            m.mark.lane = index_of(m.lane);
            model.marks.push_back(std::move(m.mark));
        }
        return model;
    }

    struct OpenTransaction {
        LaneKey lane;
        int64_t begun_ns = 0;
        int64_t precommitted_ns = -1;
    };

    const RunRecord& record_;
    int64_t end_ns_ = 0;
    std::vector<PendingBar> bars_;
    std::vector<PendingMark> marks_;
    std::map<int64_t, int64_t> checkpoints_;               // id -> triggered at, until it ends
    std::map<std::string, OpenTransaction> transactions_;  // transactional id -> open transaction
};

}  // namespace

TimelineModel build_timeline_model(const RunRecord& record) { return ModelBuilder(record).build(); }

}  // namespace eosim::reports
