// scenarios/coverage.h: the phases the tracker derives from a hand-made sequence of protocol points
// and faults, the names it accepts for "sometimes" expectations, and the summary over runs (hit
// counts, the table, the sometimes check).
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scenarios/coverage.h"

namespace eosim::scenarios {
namespace {

using sim::Duration;
using sim::FaultKind;
using sim::Time;

Time coverage_ms(int64_t ms) { return Time::zero() + Duration::millis(ms); }

// Feeds a tracker points and faults, as the runner does.
class Feed {
public:
    Feed& point(int64_t ms, const char* name, const std::string& node, int64_t detail) {
        tracker.point(coverage_ms(ms), name, node, detail);
        return *this;
    }
    Feed& fault(int64_t ms, FaultKind kind, std::vector<std::string> nodes,
                const std::string& at_point = "", Duration duration = Duration::seconds(1),
                bool skipped = false) {
        sim::FaultSpec spec;
        spec.kind = kind;
        spec.trigger.point = at_point;
        spec.duration = duration;
        sim::FiredFault fired;
        fired.at = coverage_ms(ms);
        fired.kind = kind;
        fired.nodes = std::move(nodes);
        fired.skipped = skipped;
        tracker.fault(fired, spec);
        return *this;
    }
    int64_t hits(const std::string& name) const {
        auto it = tracker.hits().find(name);
        return it == tracker.hits().end() ? 0 : it->second;
    }
    // The job running on tm0 and tm1 (every task announces task.restoring when it starts).
    Feed& job_started() {
        point(0, "task.restoring", "tm0", 0).point(0, "task.restoring", "tm1", 0);
        return point(10, "job.running", "jobmanager", 0);
    }

    CoverageTracker tracker;
};

TEST_CASE("coverage: a crash while the node's sink holds a pre-committed transaction",
          "[coverage]") {
    Feed f;
    f.job_started();
    f.point(100, "sink.precommitted", "tm0", 3);
    f.fault(101, FaultKind::crash, {"tm1"});  // tm1 holds nothing
    CHECK(f.hits("crash@sink-precommitted") == 0);
    f.point(102, "sink.precommitted", "tm1", 3);
    f.fault(103, FaultKind::crash, {"tm1"});
    CHECK(f.hits("crash@sink-precommitted") == 1);
    f.point(104, "sink.committed", "tm0", 3);
    f.fault(105, FaultKind::crash, {"tm0"});  // committed: the window is closed
    CHECK(f.hits("crash@sink-precommitted") == 1);
    CHECK(f.hits("crash@any") == 3);
    // A fault without target nodes hits the window when any node is in it.
    f.point(200, "sink.precommitted", "tm0", 4);
    f.fault(201, FaultKind::storage_failure, {});
    CHECK(f.hits("storage_failure@sink-precommitted") == 1);
    // A crash at the point itself (the tracker hears the point first).
    f.fault(201, FaultKind::crash, {"tm0"}, "sink.precommitted");
    CHECK(f.hits("crash@sink-precommitted") == 2);
    CHECK(f.hits("crash@point:sink.precommitted") == 1);
}

TEST_CASE("coverage: a crash between checkpoint completion and notification delivery",
          "[coverage]") {
    Feed f;
    f.job_started();
    f.fault(50, FaultKind::crash, {"tm0"});  // nothing completed yet
    f.point(60, "task.restoring", "tm0", 0);
    f.point(100, "checkpoint.completed", "jobmanager", 5);
    f.point(101, "checkpoint.notified", "tm0", 5);
    f.fault(102, FaultKind::crash, {"tm0"});  // tm0 has heard
    CHECK(f.hits("crash@notification-in-flight") == 0);
    f.fault(103, FaultKind::crash, {"jobmanager"});  // tm1 has not: the JobManager's crash counts
    CHECK(f.hits("crash@notification-in-flight") == 1);
    f.fault(104, FaultKind::crash, {"tm1"});
    CHECK(f.hits("crash@notification-in-flight") == 2);
    f.point(105, "task.restoring", "tm1", 0);  // tm1 back in the job
    f.point(110, "checkpoint.completed", "jobmanager", 6);
    f.point(111, "sink.committed", "tm1", 6);  // a commit also proves the notification arrived
    f.fault(112, FaultKind::partition, {"tm1", "jobmanager"});
    CHECK(f.hits("partition@notification-in-flight") == 0);
}

TEST_CASE("coverage: restore, alignment and checkpointing phases", "[coverage]") {
    Feed f;
    f.job_started();
    f.point(100, "failover.started", "jobmanager", 1);
    f.fault(150, FaultKind::crash, {"tm1"});
    f.fault(160, FaultKind::broker_unavailable, {});
    f.point(200, "job.running", "jobmanager", 1);
    f.fault(210, FaultKind::crash, {"tm0"});
    CHECK(f.hits("crash@restore") == 1);
    CHECK(f.hits("broker_unavailable@restore") == 1);
    CHECK(f.hits("crash@any") == 2);

    f.point(300, "checkpoint.triggered", "jobmanager", 7);
    f.point(301, "barrier.alignment_started", "tm0", 7);
    f.fault(302, FaultKind::partition, {"tm1", "jobmanager"});  // tm1 is not aligning
    CHECK(f.hits("partition@alignment") == 0);
    CHECK(f.hits("partition@checkpointing") == 1);
    f.fault(303, FaultKind::partition, {"tm0", "kafka"});
    CHECK(f.hits("partition@alignment") == 1);
    f.point(304, "task.snapshotted", "tm0", 7);
    f.point(305, "checkpoint.completed", "jobmanager", 7);
    f.fault(306, FaultKind::partition, {"tm0", "kafka"});
    CHECK(f.hits("partition@alignment") == 1);
    CHECK(f.hits("partition@checkpointing") == 2);
}

TEST_CASE("coverage: a paused node that resumes after a failover is a zombie", "[coverage]") {
    Feed f;
    f.job_started();
    f.fault(1000, FaultKind::pause, {"tm0"}, "", Duration::seconds(6));  // resumes at 7 s
    f.fault(1000, FaultKind::pause, {"tm1"}, "",
            Duration::seconds(1));  // resumes at 2 s, before the failover
    f.point(5000, "failover.started", "jobmanager", 1);
    f.fault(6000, FaultKind::pause, {"tm1"}, "", Duration::seconds(60));  // resumes after the run
    f.tracker.finish(coverage_ms(20'000));
    CHECK(f.hits("pause@zombie-resumed") == 1);
    CHECK(f.hits("pause@restore") == 1);
}

TEST_CASE("coverage: zombie-writes, a partition that spans a failover in a run with fenced writes",
          "[coverage]") {
    for (const uint64_t fenced : {uint64_t{0}, uint64_t{3}}) {
        Feed f;
        f.job_started();
        f.fault(1000, FaultKind::partition, {"tm0", "jobmanager"}, "",
                Duration::seconds(8));  // until 9 s
        f.fault(1000, FaultKind::partition, {"tm1"}, "",
                Duration::seconds(1));  // healed before the failover
        f.point(5000, "failover.started", "jobmanager", 1);
        f.tracker.fenced_writes(fenced);
        f.tracker.finish(coverage_ms(20'000));
        CHECK(f.hits("partition@zombie-writes") == (fenced > 0 ? 1 : 0));
    }
    CHECK_THAT(check_combination_name("pause@zombie-writes"), Catch::Contains("partition phase"));
    CHECK(check_combination_name("partition@zombie-writes").empty());
}

TEST_CASE("coverage: end-of-job, from a task's end of data to job.finished, closed by a failover",
          "[coverage]") {
    Feed f;
    f.job_started();
    f.fault(100, FaultKind::crash, {"tm0"});
    f.point(200, "task.end_of_data", "tm1", 4);
    f.fault(300, FaultKind::broker_unavailable, {});
    f.point(400, "failover.started", "jobmanager", 1);
    f.fault(500, FaultKind::crash, {"tm1"});
    f.point(600, "task.end_of_data", "tm1", 6);
    f.fault(700, FaultKind::crash, {"tm1"});
    f.point(800, "job.finished", "jobmanager", 1);
    f.fault(900, FaultKind::crash, {"tm1"});
    CHECK(f.hits("broker_unavailable@end-of-job") == 1);
    CHECK(f.hits("crash@end-of-job") == 1);
}

TEST_CASE("coverage: skipped faults and oracles", "[coverage]") {
    Feed f;
    f.fault(10, FaultKind::crash, {"tm0"}, "", Duration::seconds(1), /*skipped=*/true);
    CHECK(f.tracker.hits().empty());
    f.tracker.oracle_fired("exactly_once_output");
    CHECK(f.hits("oracle:exactly_once_output") == 1);
}

TEST_CASE("coverage: combination names", "[coverage]") {
    for (const char* name :
         {"crash@sink-precommitted", "crash@notification-in-flight", "crash@restore",
          "partition@alignment", "pause@zombie-resumed", "message_loss@any",
          "crash@point:checkpoint.completed", "oracle:exactly_once_output"}) {
        INFO(name);
        CHECK(check_combination_name(name).empty());
    }
    CHECK_THAT(check_combination_name("crash@restoring"), Catch::Contains("with a phase"));
    CHECK_THAT(check_combination_name("crsh@restore"), Catch::Contains("with a fault kind"));
    CHECK_THAT(check_combination_name("crash@point:sink.precommited"),
               Catch::Contains("with a protocol point"));
    CHECK_THAT(check_combination_name("oracle:nope"), Catch::Contains("oracle name"));
    CHECK_THAT(check_combination_name("crash@zombie-resumed"), Catch::Contains("pause phase"));
    CHECK_FALSE(check_combination_name("restore").empty());
}

TEST_CASE("coverage: summary over runs, the table and the sometimes check", "[coverage]") {
    CoverageSummary summary;
    summary.add_run({{"crash@restore", 2}, {"crash@any", 3}});
    summary.add_run({{"crash@any", 1}});
    summary.add_run({});
    CHECK(summary.runs() == 3);
    CHECK(summary.combinations().at("crash@restore").hits == 2);
    CHECK(summary.combinations().at("crash@restore").runs == 1);
    CHECK(summary.combinations().at("crash@any").hits == 4);
    CHECK(summary.combinations().at("crash@any").runs == 2);

    const std::vector<std::string> sometimes{"crash@restore", "crash@sink-precommitted"};
    CHECK(check_sometimes(summary, sometimes) ==
          std::vector<std::string>{"crash@sink-precommitted"});
    const std::string table = coverage_table(summary, sometimes);
    CHECK_THAT(table, Catch::Contains("coverage over 3 runs"));
    CHECK_THAT(table, Catch::Contains("crash@restore"));
    CHECK_THAT(table, Catch::Contains("(sometimes: ok)"));
    CHECK_THAT(table, Catch::Contains("crash@sink-precommitted"));
    CHECK_THAT(table, Catch::Contains("(sometimes: NEVER HIT)"));
}

}  // namespace
}  // namespace eosim::scenarios
