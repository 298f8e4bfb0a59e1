// Invariants checked in every build (sim/invariant.h): the default handler names the invariant
// and its place and aborts (seen in a forked child); each check of the task's pieces and of the
// channel-state writer fires on its slip (a handler that throws stands in for the abort), and a
// normal run breaks none of them.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "engine/checkpointing/channel_state_writer.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"
#include "sim/external/kafka.h"
#include "sim/invariant.h"
#include "sim/world.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

// Runs `body` in a forked child with stderr captured; returns the child's wait status and output.
std::pair<int, std::string> in_child(void (*body)()) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);  // not the test framework's handler: the child just dies
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        body();
        _exit(0);
    }
    close(fds[1]);
    std::string output;
    char buffer[256];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
        output.append(buffer, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    return {status, output};
}

void broken_invariant() { EOSIM_INVARIANT(1 + 1 == 3, "arithmetic holds"); }
void kept_invariant() { EOSIM_INVARIANT(1 + 1 == 2, "arithmetic holds"); }

// A job running on a real engine: Kafka -> keyed count -> Kafka, parallelism 1, a checkpoint every
// 500 ms, its input's end far away and no record written (the job runs on, checkpoints too). Its
// tasks are reached by hand to make slips.
struct RunningJob {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId broker = world.nodes().add("broker");
    sim::external::KafkaCluster kafka{world.scheduler(), world.network(), broker,
                                      sim::external::KafkaOptions{}};
    JobSpec job = test::count_scenario(0, 1).deployment_job(0);
    RunObserver observer;
    std::unique_ptr<Engine> engine;

    RunningJob() {
        kafka.create_topic("input", 1);
        kafka.create_topic("output", 1);
        OutsideSystems outside;
        outside.kafka = &kafka;
        engine = std::make_unique<Engine>(world, job, ClusterShape{1, 3},
                                          EngineServices{outside, {{{"input", 0}, 1'000'000}}},
                                          observer);
        engine->start();
    }
    void run_for(sim::Duration duration) { world.scheduler().run_until(world.now() + duration); }
    // Subtask 0 of vertex `vertex` (0 source, 1 count, 2 sink) of the running attempt.
    Task& task(int32_t vertex) {
        for (sim::NodeId node : engine->task_manager_nodes()) {
            for (int64_t attempt : {1, 1001, 2001}) {
                if (Task* found = engine->find_task(node, TaskKey{attempt, vertex, 0}))
                    return *found;
            }
        }
        FAIL("no task of vertex " << vertex);
        throw std::logic_error("unreachable");
    }
};

}  // namespace

TEST_CASE("invariants: the default handler names the invariant and its place, then aborts",
          "[invariants]") {
    const auto [status, output] = in_child(broken_invariant);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
    CHECK_THAT(output,
               Catch::StartsWith("eosim: invariant broken: arithmetic holds (1 + 1 == 3) at "));
    CHECK_THAT(output, Catch::Contains("test_invariants.cpp:"));
    // Positive twin: a kept invariant neither prints nor stops.
    const auto [kept_status, kept_output] = in_child(kept_invariant);
    CHECK(WIFEXITED(kept_status));
    CHECK(WEXITSTATUS(kept_status) == 0);
    CHECK(kept_output.empty());
}

TEST_CASE("invariants: a replaced handler sees the failure, and the scope puts the default back",
          "[invariants]") {
    {
        sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
        CHECK_THROWS_WITH(broken_invariant(),
                          Catch::StartsWith("invariant broken: arithmetic holds (1 + 1 == 3) at "));
        CHECK_NOTHROW(kept_invariant());
    }
    const auto [status, output] = in_child(broken_invariant);  // the default again: it aborts
    CHECK(WIFSIGNALED(status));
}

TEST_CASE("invariants: the channel-state writer is not used after its hand-over", "[invariants]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    ChannelStateWriter writer;
    // Positive twin: start, record, hand over.
    writer.start(3, 2, 1);
    writer.set_recording(1, true);
    writer.add_input(1, RecordBatch{Record{1, 1}});
    writer.add_output(0, RecordBatch{Record{2, 2}});
    const ChannelState state = writer.take();
    CHECK(state.records() == 2);
    CHECK_FALSE(writer.recording(1));

    const auto after_hand_over =
        Catch::Contains("channel-state writer not used after its hand-over");
    CHECK_THROWS_WITH(writer.add_input(1, RecordBatch{Record{3, 3}}), after_hand_over);
    CHECK_THROWS_WITH(writer.add_output(0, RecordBatch{Record{3, 3}}), after_hand_over);
    CHECK_THROWS_WITH(writer.set_recording(0, true), after_hand_over);
    CHECK_THROWS_WITH(writer.take(), after_hand_over);

    writer.start(4, 2, 1);
    CHECK_THROWS_WITH(writer.add_input(2, RecordBatch{Record{1, 1}}),
                      Catch::Contains("channel state of a channel the checkpoint has"));
    CHECK_THROWS_WITH(writer.add_output(-1, RecordBatch{Record{1, 1}}),
                      Catch::Contains("channel state of a channel the checkpoint has"));
    CHECK_THROWS_WITH(writer.start(5, 2, 1),
                      Catch::Contains("started while another checkpoint's recording is active"));
    writer.discard();
    CHECK_THROWS_WITH(writer.start(0, 2, 1),
                      Catch::Contains("channel state of a real checkpoint id"));
}

TEST_CASE("invariants: a running job breaks none, and each slip at a task's pieces is caught",
          "[invariants]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    RunningJob job;
    // Positive twin: deployment, channels, credits and several checkpoints, none broken.
    REQUIRE_NOTHROW(job.run_for(sim::Duration::seconds(6)));
    REQUIRE(job.engine->stats().checkpoints_completed >= 2);

    SECTION("input side: an element or a barrier on an unknown input channel") {
        Task& count = job.task(1);
        ChannelElement barrier{ChannelElement::Type::barrier, 99, {}};
        CHECK_THROWS_WITH(count.element_arrived(5, barrier),
                          Catch::Contains("an input element on a known input channel"));
        CHECK_THROWS_WITH(count.element_arrived(-1, ChannelElement{}),
                          Catch::Contains("an input element on a known input channel"));
        CHECK_THROWS_WITH(count.block_channel(1),
                          Catch::Contains("an input element on a known input channel"));
    }
    SECTION("output side: credits for an unknown channel, more than granted, a second opening") {
        Task& source = job.task(0);
        CHECK_THROWS_WITH(source.credit_returned(1),
                          Catch::Contains("credit for a known output channel"));
        CHECK_THROWS_WITH(source.credit_returned(0),
                          Catch::Contains("a consumer returns no more credits than it granted"));
        CHECK_THROWS_WITH(source.channel_opened(0, 0, 2),
                          Catch::Contains("an output channel is opened once"));
        CHECK_THROWS_WITH(source.channel_opened(0, 0, -1),
                          Catch::Contains("a consumer grants credits when it opens a channel"));
    }
    SECTION("checkpoint work: a snapshot of a checkpoint older than the last") {
        CHECK_THROWS_WITH(
            job.task(1).trigger_snapshot(1),
            Catch::Contains("a task snapshots each checkpoint once, in increasing order"));
    }
    SECTION("operator chain: its restored state is taken once") {
        CHECK_THROWS_WITH(job.task(1).chain().restore({}, {}, {}, false, false, 0),
                          Catch::Contains("an operator chain takes its restored state once"));
    }
    SECTION("task lifecycle: a running task is not restored again (task_lifecycle.h)") {
        CHECK_THROWS_WITH(job.task(1).restore(),
                          Catch::Contains("a task moves only along its lifecycle"));
    }
}

}  // namespace eosim::engine
