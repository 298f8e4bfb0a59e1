#include "cli/cpu_share.h"

#include <sched.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace eosim::cli {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> words(const std::string& text, char separator) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string word; std::getline(in, word, separator);) out.push_back(word);
    return out;
}

bool has_word(const std::string& list, const std::string& word) {
    for (const std::string& w : words(list, ',')) {
        if (w == word) return true;
    }
    return false;
}

// The first line of a file; "" when it cannot be read.
std::string first_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// A path of the real filesystem (absolute) below `root`.
fs::path under(const fs::path& root, const std::string& absolute) {
    return root / fs::path(absolute).relative_path();
}

// One cgroup hierarchy that can carry a CPU quota: where it is mounted and what part of it
// (`mount_root`) the mount shows.
struct CpuHierarchy {
    bool v2 = false;
    fs::path mount_point;
    std::string mount_root;
};

// From /proc/self/mountinfo: "36 35 98:0 /root /mount/point rw,... - cgroup2 cgroup2 rw,...".
std::vector<CpuHierarchy> cpu_hierarchies(const fs::path& root) {
    std::vector<CpuHierarchy> out;
    std::ifstream in(under(root, "/proc/self/mountinfo"));
    for (std::string line; std::getline(in, line);) {
        const size_t dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        const std::vector<std::string> before = words(line.substr(0, dash), ' ');
        const std::vector<std::string> after = words(line.substr(dash + 3), ' ');
        if (before.size() < 5 || after.size() < 3) continue;
        const bool v2 = after[0] == "cgroup2";
        if (!v2 && !(after[0] == "cgroup" && has_word(after[2], "cpu"))) continue;
        out.push_back({v2, under(root, before[4]), before[3]});
    }
    return out;
}

// The process's cgroup in that hierarchy, from /proc/self/cgroup ("0::/path" for v2,
// "4:cpu,cpuacct:/path" for v1); nullopt when it is in none.
std::optional<std::string> cgroup_path(const fs::path& root, bool v2) {
    std::ifstream in(under(root, "/proc/self/cgroup"));
    for (std::string line; std::getline(in, line);) {
        const size_t first = line.find(':');
        const size_t second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        if (v2 ? line.substr(0, first) == "0" && controllers.empty()
               : has_word(controllers, "cpu")) {
            return line.substr(second + 1);
        }
    }
    return std::nullopt;
}

// The quota set in one cgroup folder, in CPUs; nullopt for none ("max", -1) or no file.
std::optional<double> quota_in(const fs::path& dir, bool v2) {
    double quota = 0;
    double period = 0;
    if (v2) {
        const std::vector<std::string> fields = words(first_line(dir / "cpu.max"), ' ');
        if (fields.size() != 2 || fields[0] == "max") return std::nullopt;
        if (std::sscanf(fields[0].c_str(), "%lf", &quota) != 1 ||
            std::sscanf(fields[1].c_str(), "%lf", &period) != 1) {
            return std::nullopt;
        }
    } else if (std::sscanf(first_line(dir / "cpu.cfs_quota_us").c_str(), "%lf", &quota) != 1 ||
               std::sscanf(first_line(dir / "cpu.cfs_period_us").c_str(), "%lf", &period) != 1) {
        return std::nullopt;
    }
    if (quota <= 0 || period <= 0) return std::nullopt;
    return quota / period;
}

// The smallest quota from the process's cgroup folder up to the hierarchy's mount point.
std::optional<double> hierarchy_quota(const CpuHierarchy& h, const std::string& path) {
    // The mount shows the hierarchy from `mount_root` down (a container's cgroup namespace, or a
    // bind mount); a path outside it (a container without its own namespace) is read at the top.
    std::string below;
    if (h.mount_root == "/") {
        below = path;
    } else if (path.rfind(h.mount_root, 0) == 0 &&
               (path.size() == h.mount_root.size() || path[h.mount_root.size()] == '/')) {
        below = path.substr(h.mount_root.size());
    }
    const fs::path top = h.mount_point.lexically_normal();
    const fs::path relative = fs::path(below).relative_path().lexically_normal();
    fs::path dir = relative.empty() || relative == "." ? top : (top / relative).lexically_normal();
    std::optional<double> smallest;
    for (;;) {
        if (const std::optional<double> q = quota_in(dir, h.v2); q && (!smallest || *q < *smallest))
            smallest = q;
        if (dir == top || dir.string().size() <= top.string().size()) break;
        dir = dir.parent_path();
    }
    return smallest;
}

}  // namespace

std::optional<CpuQuota> cgroup_cpu_quota(const fs::path& root) {
    std::optional<CpuQuota> smallest;
    for (const CpuHierarchy& h : cpu_hierarchies(root)) {
        const std::optional<std::string> path = cgroup_path(root, h.v2);
        if (!path) continue;
        const std::optional<double> cpus = hierarchy_quota(h, *path);
        if (cpus && (!smallest || *cpus < smallest->cpus))
            smallest = CpuQuota{*cpus, h.v2 ? "cpu.max" : "cpu.cfs_quota_us"};
    }
    return smallest;
}

size_t affinity_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return static_cast<size_t>(CPU_COUNT(&set));
}

WorkerCount choose_workers(size_t requested, size_t affinity, const std::optional<CpuQuota>& quota,
                           size_t machine_cpus) {
    if (requested != 0) return {requested, "--jobs"};
    WorkerCount count;
    if (affinity != 0) {
        count = {affinity, "CPU affinity: " + std::to_string(affinity) + " of " +
                               std::to_string(machine_cpus) + " CPUs"};
    } else {
        count = {std::max<size_t>(machine_cpus, 1), "the machine's CPUs"};
    }
    if (quota) {
        const auto quota_cpus = static_cast<size_t>(std::max(1.0, std::ceil(quota->cpus - 1e-9)));
        if (quota_cpus < count.workers) {
            char cpus[32];
            std::snprintf(cpus, sizeof cpus, "%g", quota->cpus);
            count = {quota_cpus, "cgroup CPU quota: " + std::string(cpus) +
                                     (quota->cpus == 1 ? " CPU (" : " CPUs (") + quota->source +
                                     "); " + count.why};
        }
    }
    return count;
}

WorkerCount default_workers(size_t requested) {
    if (requested != 0) return choose_workers(requested, 0, std::nullopt, 0);
    return choose_workers(0, affinity_cpus(), cgroup_cpu_quota(),
                          std::thread::hardware_concurrency());
}

std::string describe(const WorkerCount& count, const std::string& noun) {
    return std::to_string(count.workers) + " " + noun + (count.workers == 1 ? "" : "s") + " (" +
           count.why + ")";
}

}  // namespace eosim::cli
