#pragma once
// How many workers (processes or threads) a command starts when `--jobs` is not given: one per CPU
// this process may use, not one per CPU of the machine. A Slurm task with one CPU (task/affinity),
// a `taskset -c 0`, a container with a CPU limit (Docker's --cpus, a Kubernetes CPU limit: the
// cgroup CPU quota) all run on a machine with more CPUs; starting one worker per machine CPU there
// only makes the workers take turns (and, under a quota, be throttled).
//
// What counts: the CPUs of the affinity mask (sched_getaffinity), and the cgroup CPU quota of the
// process's cgroup and of every cgroup above it (v2 `cpu.max`, v1 `cpu.cfs_quota_us` /
// `cpu.cfs_period_us`; the smallest), rounded up to whole CPUs (as the JVM does: a quota of 1.5
// CPUs gets 2 workers, which together use all of it). Not counted: CPU shares / weights (a relative
// priority, not a limit) and cpuset cgroups (already in the affinity mask).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace eosim::cli {

struct CpuQuota {
    double cpus = 0;     // quota / period
    std::string source;  // "cpu.max" (cgroup v2) or "cpu.cfs_quota_us" (v1)
};

// The CPU quota of this process's cgroup, nullopt when there is none. Every path read
// (/proc/self/cgroup, /proc/self/mountinfo and the cgroup files under the mount points named
// there) is taken below `root`: "/" for this process, a fake tree in tests.
std::optional<CpuQuota> cgroup_cpu_quota(const std::filesystem::path& root = "/");

// The CPUs this process's affinity mask allows; 0 when it cannot be read.
size_t affinity_cpus();

struct WorkerCount {
    size_t workers = 1;
    std::string
        why;  // "--jobs", "CPU affinity: 1 of 2 CPUs", "cgroup CPU quota: 1.5 CPUs (cpu.max) ..."
};

// The choice from its inputs: `requested` (--jobs; 0 when not given), the affinity mask's CPUs (0:
// unknown), the quota and the machine's CPUs (std::thread::hardware_concurrency; 0: unknown).
WorkerCount choose_workers(size_t requested, size_t affinity, const std::optional<CpuQuota>& quota,
                           size_t machine_cpus);

// The same for this process.
WorkerCount default_workers(size_t requested);

// "2 workers (CPU affinity: 2 of 2 CPUs)", "1 worker (--jobs)"; `noun` "worker" or "thread".
std::string describe(const WorkerCount& count, const std::string& noun = "worker");

}  // namespace eosim::cli
