#pragma once
// A ZooKeeper-like coordination service: what Flink's JobManager high availability stands on
// (leader election, the completed-checkpoint store, the checkpoint id counter).
//
// What is modelled (the behaviour HA safety depends on):
// - the service lives on a node of its own and is reached only through the simulated network:
//   every request is a datagram to the service's node and every answer a datagram back, so a
//   partition, a crash of either end, or datagram loss drops them. A request whose answer does not
//   arrive within `request_timeout` ends with `connection_loss` on the caller's node (its effect
//   may or may not have been applied: ZooKeeper's ConnectionLoss);
// - sessions with a timeout: a session the service has not heard from (any request counts) for its
//   timeout expires; its ephemeral nodes are deleted and later requests with it answer
//   `session_expired`. A crash of the service keeps its data and sessions (a replicated ensemble's
//   log), and gives every session its full timeout again when it comes back (as a ZooKeeper leader
//   election does);
// - nodes (path -> value) with a version (bumped by every set) and the zxid that created them; the
//   zxid is a service-wide counter of writes, so a node's creation zxid strictly increases across
//   re-creations (a leader's fencing token);
// - compare-and-set: set and remove with an expected version (-1: any);
// - fencing: a write may carry a `Fence` {path, session}: it applies only while the node at `path`
//   exists and is owned (ephemerally) by `session` -- ZooKeeper's multi() of a check on the leader
//   latch and the write, as Flink's ZooKeeperStateHandleStore does it; otherwise `fenced`;
// - one-shot watches on a path (exists/get with a watch): the watcher is told (a datagram) when the
//   node is created, changed or deleted; a watch left by an expired session is dropped. The event
//   is a datagram: a partition or loss drops it, where ZooKeeper's ordered connection would deliver
//   it or break (the client then reconnects); a client that saw a request go unanswered must read
//   again what it watches (engine/runtime/leader_election.h does);
// - faults: unavailable until T (requests are dropped unanswered), write errors until T (writes
//   answer `write_failed`), and the expiry of the sessions of a client node (a long GC pause as
//   ZooKeeper sees it).
//
// Not modelled: the ensemble itself (quorum loss is "unavailable"; a crash of the node is a crash
// of the whole ensemble), sequential and container nodes, ACLs, request pipelining order across
// sessions beyond what the network's datagrams give, sync(), client-side watch re-registration
// (watches live on the service and survive its restart).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/outside_fault_target.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

using SessionId = int64_t;  // 0: none

enum class CoordinationStatus : uint8_t {
    ok,
    connection_loss,  // no answer in time (outcome unknown)
    no_node,
    node_exists,
    bad_version,
    session_expired,
    fenced,        // the write's fence did not hold (its owner no longer holds the fence node)
    write_failed,  // an injected write error: nothing changed
};
const char* to_string(CoordinationStatus status);

struct CoordinationNode {
    std::string value;
    int64_t version = 0;       // 0 at creation, +1 per set
    int64_t created_zxid = 0;  // strictly increasing across every creation of every node
    SessionId owner = 0;       // ephemeral: the owning session; 0: persistent
};

struct Fence {
    std::string path;
    SessionId session = 0;
};

struct CoordinationStats {
    uint64_t requests = 0;  // requests that reached the service
    uint64_t writes_applied = 0;
    uint64_t fenced_writes = 0;  // writes refused because their fence did not hold
    uint64_t sessions_expired = 0;
    uint64_t watches_fired = 0;
    uint64_t refused_by_fault =
        0;  // requests left unanswered (unavailable) or writes failed (write errors) by a fault
};

class CoordinationService final : public OutsideFaultTarget {
public:
    using Done = std::function<void(CoordinationStatus)>;
    using Opened = std::function<void(CoordinationStatus, SessionId)>;
    using Created = std::function<void(CoordinationStatus, int64_t created_zxid)>;
    using Read = std::function<void(CoordinationStatus, CoordinationNode)>;
    using Listed = std::function<void(CoordinationStatus,
                                      std::vector<std::pair<std::string, CoordinationNode>>)>;
    using Watcher = std::function<void()>;

    CoordinationService(Scheduler& scheduler, Network& network, NodeId node,
                        Duration request_timeout);

    NodeId node() const { return node_; }
    // Wire into the service node's process: its crash pauses expiry, its restart resets timeouts.
    void booted();

    void open_session(NodeId caller, Duration timeout, Opened done);
    // Any request renews the session; this one does nothing else.
    void keep_alive(NodeId caller, SessionId session, Done done);
    void create(NodeId caller, SessionId session, const std::string& path, const std::string& value,
                bool ephemeral, std::optional<Fence> fence, Created done);
    // `watch`: told once when the node next changes (created, set, deleted).
    void get(NodeId caller, SessionId session, const std::string& path, Read done,
             Watcher watch = nullptr);
    void set(NodeId caller, SessionId session, const std::string& path, const std::string& value,
             int64_t expected_version, std::optional<Fence> fence, Done done);
    void remove(NodeId caller, SessionId session, const std::string& path, int64_t expected_version,
                std::optional<Fence> fence, Done done);
    // The nodes whose path starts with `prefix`, in path order.
    void list(NodeId caller, SessionId session, const std::string& prefix, Listed done);

    // Faults.
    void set_unavailable_until(Time until) override { unavailable_until_ = until; }
    void set_write_errors_until(Time until) override { write_errors_until_ = until; }
    // Expires every session opened from `client` now (its ephemeral nodes go, watches fire).
    void expire_sessions_of(NodeId client);

    // Narrow views for oracles and tests.
    const std::map<std::string, CoordinationNode>& nodes() const { return nodes_; }
    bool session_alive(SessionId session) const { return sessions_.contains(session); }
    const CoordinationStats& stats() const { return stats_; }
    // A digest of the nodes it holds (sim/external/content_digest.cpp).
    uint64_t content_digest() const;

private:
    struct Session {
        NodeId client;
        Duration timeout;
        uint64_t generation = 0;  // bumped on every renewal: older expiry timers do nothing
    };
    struct Watch {
        NodeId client;
        SessionId session;
        Watcher watcher;
    };

    // Sends the request to the service; `apply` runs there (if it arrives) and returns the answer,
    // which runs on the caller's node (if it arrives); otherwise `lost` runs there after the
    // timeout.
    void call(NodeId caller, std::function<std::function<void()>()> apply,
              std::function<void()> lost);
    bool renew(SessionId session);  // false: unknown (expired) session
    void arm_expiry(SessionId session);
    void expire(SessionId session);
    bool fence_holds(const std::optional<Fence>& fence) const;
    // Common checks of a write: session alive, write errors, fence. ok or the failure.
    CoordinationStatus admit_write(SessionId session, const std::optional<Fence>& fence);
    void changed(const std::string& path);

    Scheduler& scheduler_;
    Network& network_;
    NodeId node_;
    Duration request_timeout_;
    std::map<std::string, CoordinationNode> nodes_;
    std::map<SessionId, Session> sessions_;
    std::multimap<std::string, Watch> watches_;
    SessionId next_session_ = 1;
    int64_t zxid_ = 0;
    Time unavailable_until_ = Time::zero();
    Time write_errors_until_ = Time::zero();
    CoordinationStats stats_;
};

}  // namespace eosim::sim::external
