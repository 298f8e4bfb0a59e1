// cli::cpu_share: how many workers a command starts without --jobs.
// - the choice: --jobs wins; else the affinity mask's CPUs; a smaller cgroup CPU quota (rounded up)
//   wins over them; a quota larger than the mask changes nothing;
// - the quota is read from fake /proc/self/{cgroup,mountinfo} and cgroup trees: v2 cpu.max ("max":
//   none), the smallest along the path to the mount point, v1 cpu.cfs_quota_us / cpu.cfs_period_us
//   (-1: none), a mount showing a part of the hierarchy (a container's cgroup namespace);
// - end to end: `taskset -c 0 eosim suite ...` starts one worker and says why; `taskset -c 0,1` two
//   (when this process may use two CPUs).
#include <sched.h>
#include <unistd.h>

#include <thread>

#include <catch2/catch.hpp>

#include "cli/cpu_share.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using testing::TempDir;

// A fake root: /proc/self/cgroup and /proc/self/mountinfo as given, and cgroup files.
void write_file(const TempDir& root, const std::string& path, const std::string& text) {
    const std::filesystem::path file = root / path;
    std::filesystem::create_directories(file.parent_path());
    testing::write_text(file, text);
}

const std::string kV2Mount =
    "30 22 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";

TEST_CASE("cpu share: --jobs, else the affinity mask, else a smaller cgroup quota",
          "[cli][cpu-share]") {
    CHECK(describe(choose_workers(3, 1, CpuQuota{1, "cpu.max"}, 8)) == "3 workers (--jobs)");
    CHECK(describe(choose_workers(0, 1, std::nullopt, 2)) ==
          "1 worker (CPU affinity: 1 of 2 CPUs)");
    CHECK(describe(choose_workers(0, 8, std::nullopt, 8)) ==
          "8 workers (CPU affinity: 8 of 8 CPUs)");
    CHECK(describe(choose_workers(0, 8, CpuQuota{1.5, "cpu.max"}, 8)) ==
          "2 workers (cgroup CPU quota: 1.5 CPUs (cpu.max); CPU affinity: 8 of 8 CPUs)");
    CHECK(choose_workers(0, 8, CpuQuota{0.2, "cpu.cfs_quota_us"}, 8).workers == 1);
    CHECK(choose_workers(0, 8, CpuQuota{4, "cpu.max"}, 8).workers == 4);
    // A quota above what the mask allows changes nothing.
    CHECK(describe(choose_workers(0, 2, CpuQuota{6, "cpu.max"}, 8)) ==
          "2 workers (CPU affinity: 2 of 8 CPUs)");
    CHECK(describe(choose_workers(0, 0, std::nullopt, 4)) == "4 workers (the machine's CPUs)");
    CHECK(describe(default_workers(5), "thread") == "5 threads (--jobs)");
}

TEST_CASE("cpu share: the cgroup v2 quota is cpu.max, the smallest up the path",
          "[cli][cpu-share]") {
    TempDir root;
    write_file(root, "proc/self/mountinfo", kV2Mount);
    write_file(root, "proc/self/cgroup", "0::/kubepods/pod1/c1\n");
    SECTION("no cpu.max anywhere, or \"max\": no quota") {
        CHECK_FALSE(cgroup_cpu_quota(root.path()));
        write_file(root, "sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "max 100000\n");
        CHECK_FALSE(cgroup_cpu_quota(root.path()));
    }
    SECTION("the process's own cgroup") {
        write_file(root, "sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "150000 100000\n");
        const auto quota = cgroup_cpu_quota(root.path());
        REQUIRE(quota);
        CHECK(quota->cpus == 1.5);
        CHECK(quota->source == "cpu.max");
    }
    SECTION("a parent's smaller quota limits the child") {
        write_file(root, "sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "400000 100000\n");
        write_file(root, "sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000\n");
        write_file(root, "sys/fs/cgroup/kubepods/cpu.max", "max 100000\n");
        REQUIRE(cgroup_cpu_quota(root.path()));
        CHECK(cgroup_cpu_quota(root.path())->cpus == 0.5);
    }
    SECTION("a container's namespace: the mount shows the hierarchy from the pod down") {
        write_file(root, "proc/self/mountinfo",
                   "30 22 0:27 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
        write_file(root, "sys/fs/cgroup/c1/cpu.max", "200000 100000\n");
        REQUIRE(cgroup_cpu_quota(root.path()));
        CHECK(cgroup_cpu_quota(root.path())->cpus == 2);
    }
}

TEST_CASE("cpu share: the cgroup v1 quota is cpu.cfs_quota_us / cpu.cfs_period_us",
          "[cli][cpu-share]") {
    TempDir root;
    write_file(
        root, "proc/self/mountinfo",
        "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
        "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
    write_file(root, "proc/self/cgroup", "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n");
    write_file(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    write_file(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    CHECK_FALSE(cgroup_cpu_quota(root.path()));  // -1: none
    write_file(root, "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n");
    const auto quota = cgroup_cpu_quota(root.path());
    REQUIRE(quota);
    CHECK(quota->cpus == 3);
    CHECK(quota->source == "cpu.cfs_quota_us");
    // The memory controller's quota-like files do not count: only a hierarchy with "cpu".
    write_file(root, "sys/fs/cgroup/memory/docker/abc/cpu.cfs_quota_us", "10000\n");
    CHECK(cgroup_cpu_quota(root.path())->cpus == 3);
}

// `taskset -c CPUS eosim suite` of the quick fixture over one seed: its first line.
std::string suite_under_taskset(const std::string& cpus) {
    TempDir dir;
    const testing::Finished f =
        testing::run_to_end({"/usr/bin/taskset", "-c", cpus, testing::kEosim.string(), "suite",
                             (testing::kCliFixtures / "quick.suite.json").string(), "--seeds", "1",
                             "--progress", "none", "--results", (dir / "r.jsonl").string()});
    INFO(f.out << f.err);
    CHECK(f.exit_code == 0);
    return f.out.substr(0, f.out.find('\n'));
}

TEST_CASE("cpu share: taskset -c 0 eosim suite starts one worker", "[cli][cpu-share]") {
    cpu_set_t own;
    CPU_ZERO(&own);
    REQUIRE(::sched_getaffinity(0, sizeof own, &own) == 0);
    if (::access("/usr/bin/taskset", X_OK) != 0 || !CPU_ISSET(0, &own)) {
        WARN(
            "skipped: /usr/bin/taskset (util-linux) is not installed, or this process may not use CPU 0");
        return;
    }
    const std::string machine = std::to_string(std::thread::hardware_concurrency());
    CHECK_THAT(suite_under_taskset("0"),
               Catch::EndsWith("; 1 worker (CPU affinity: 1 of " + machine + " CPUs)"));
    const auto quota = cgroup_cpu_quota();
    if (!CPU_ISSET(1, &own) || (quota && quota->cpus <= 1)) {
        WARN(
            "skipped the two-CPU twin: this process may not use CPUs 0 and 1, or its cgroup quota is one CPU");
        return;
    }
    CHECK_THAT(suite_under_taskset("0,1"),
               Catch::EndsWith("; 2 workers (CPU affinity: 2 of " + machine + " CPUs)"));
}

}  // namespace
}  // namespace eosim::cli
