#pragma once
// The anomaly table of a run (built by scenarios/run/anomaly_table.h): the records an output
// oracle found lost or duplicated, grouped as Jepsen reports anomalies -- by sink, by the
// transaction (and so the checkpoint) that lost or duplicated them, with the faults that fired and
// the deployments that ran while that transaction was open -- and each Kafka transaction's
// timeout margin: how long before its timeout it was committed.
//
// Groups, for a sink writing a Kafka topic: "duplicated" records by the committed transaction that
// holds a copy beyond the expected count (the later commits: a replay committed again); "lost"
// records by the aborted (or still open) transaction that held them, or "never written" when no
// transaction of the topic ever held them. For other sinks no transaction is known: records
// (appended sinks) or keys (keyed tables: "lost", "wrong value", "extra") by kind.
//
// Not here: the verdicts (the oracles judge; this only explains), document ids (a document sink's
// reader hands records, not ids).
#include <cstdint>
#include <string>
#include <vector>

namespace eosim::scenarios {

struct AnomalyGroup {
    std::string sink;         // the sink vertex's id
    std::string kind;         // "lost", "duplicated", "wrong value", "extra"
    std::string transaction;  // the Kafka transactional id; "" when none
    std::string where;  // for people: "committed transaction", "aborted transaction (expired)", ...
    int64_t checkpoint = -1;  // the checkpoint the transaction was pre-committed for (-1: unknown)
    int64_t records = 0;      // records (or keys) in the group
    double from_s = -1;  // the transaction's first record .. its end (or the run's), -1: unknown
    double to_s = -1;
    std::vector<std::string> examples;     // a few of its records or keys
    std::vector<std::string> faults;       // the faults that fired within [from_s, to_s]
    std::vector<std::string> deployments;  // the deployments that ran within [from_s, to_s]
};

// A transaction that held records of a Kafka sink's topic: its age when it ended (from its first
// record, when the broker's timeout starts) against its timeout.
struct TransactionMargin {
    std::string sink;
    std::string transaction;
    int64_t checkpoint = -1;
    std::string
        outcome;  // "committed", "expired" (aborted at its timeout), "aborted", "open at the end"
    double age_ms = 0;
    double timeout_ms = 0;
    double margin_ms() const { return timeout_ms - age_ms; }
    bool warned() const;  // under kMarginWarningPercent of the timeout
};

// A margin under this share of the timeout is a warning: a commit that came within 20% of the
// timeout (a recovery or a slow checkpoint a little longer loses the transaction).
inline constexpr int64_t kMarginWarningPercent = 20;
inline constexpr size_t kAnomalyGroupsMax = 20;  // groups kept (the rest counted)
inline constexpr size_t kMarginsMax = 10;        // margins kept: the tightest

inline bool TransactionMargin::warned() const {
    return margin_ms() * 100 < timeout_ms * static_cast<double>(kMarginWarningPercent);
}

struct AnomalyTable {
    bool examined = false;  // an output oracle fired, so the sinks' records were examined
    std::vector<AnomalyGroup> groups;
    int64_t groups_left_out = 0;
    int64_t lost = 0;  // records (or keys) over every group, those left out included
    int64_t duplicated = 0;
    // Over every transaction that held records of a Kafka sink's topic.
    int64_t transactions_measured = 0;
    int64_t margin_warnings = 0;             // margins under kMarginWarningPercent of the timeout
    std::vector<TransactionMargin> margins;  // the tightest first, at most kMarginsMax
};

}  // namespace eosim::scenarios
