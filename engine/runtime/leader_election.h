#pragma once
// JobManager leader election through the coordination service
// (sim/external/coordination_service.h), after Flink's ZooKeeper leader election (a LeaderLatch)
// and its fenced state handle store.
//
// Each JobManager process opens a session and tries to create the ephemeral node
// `/eosim/<job>/leader`. The one that creates it leads; the node's creation zxid is its fencing
// token (the leader session id: it strictly increases from one leader to the next, so TaskManagers
// can refuse an older leader's messages). The others watch the node and try again when it goes,
// which happens only when the leader's session expires (its process died, was paused, or was cut
// off from the service for the session timeout) or it gives up. A watch event is a datagram that a
// partition can drop, where ZooKeeper's connection delivers it or breaks (Curator then reconnects
// and LeaderLatch resets). So, as LeaderLatch on RECONNECTED, a contender whose keep-alive went
// unanswered contends again at the next answered one (creates the node, or reads it with a fresh
// watch); older rounds' watches and retries then do nothing. A contender that reads the node owned
// by its own session (its create applied, the answer lost) leads.
//
// Every write a leader makes to the service (the checkpoint store, the id counter, the check before
// a deployment) carries `fence()`: the service applies it only while the leader node is still owned
// by this session (ZooKeeper's multi() of a check and the write). A deposed leader that still
// believes it leads (a paused process, a partition from the service but not from the TaskManagers)
// therefore cannot add a checkpoint to the store, so it cannot complete one nor notify its tasks,
// and cannot pass the check before a deployment.
//
// The session is kept alive every session_timeout / 3. Leadership is given up (the JobManager is
// replaced by a fresh standby process) when the service says the session expired, or when no
// keep-alive has been answered for a whole session timeout (Curator's connection loss / SUSPENDED:
// Flink revokes leadership then) -- unless tolerate_suspended_connections, when only the service's
// answer "session expired" ends it. Giving up is for liveness; safety comes from the fence alone.
#include <cstdint>
#include <functional>
#include <string>

#include "engine/checkpointing/leader_session.h"
#include "sim/external/coordination_service.h"
#include "sim/time.h"

namespace eosim::engine {

class Engine;

class LeaderElection {
public:
    struct Callbacks {
        std::function<void(int64_t token)> granted;
        std::function<void(const std::string& why)> revoked;
    };

    LeaderElection(Engine& engine, sim::NodeId node, uint64_t instance, Callbacks callbacks);

    void start();
    bool leading() const { return token_ != 0; }
    int64_t token() const { return token_; }
    sim::external::SessionId session() const { return session_; }
    sim::external::Fence fence() const { return {leader_path(), session_}; }
    sim::external::CoordinationService& service();
    // `/eosim/<job>/` + leaf.
    std::string path(const std::string& leaf) const;
    // What the HA checkpoint stores write with (engine/checkpointing/leader_session.h).
    LeaderSession leader_session() { return {&service(), session_, fence(), path("")}; }
    std::string leader_path() const { return path("leader"); }
    // A fenced write on the leader node: `done(true)` when this process still led when it applied.
    void confirm(std::function<void(bool)> done);
    // Gives leadership up now (the JobManager process is replaced by a standby).
    void resign(const std::string& why) { give_up(why); }

private:
    void open();
    // Creates the leader node (a new round: older rounds' watches and retries then do nothing).
    void contend();
    // The node exists: read it with a watch; contend again when it changes or is gone.
    void watch_leader(uint64_t round);
    void retry_contend(uint64_t round);
    void lead(int64_t token);
    void keep_alive_round();
    void give_up(const std::string& why);
    // A callback that runs `f(LeaderElection&, args...)` only while this process is still the one
    // on the node.
    template <typename F>
    auto bound(F f);

    Engine& engine_;
    sim::NodeId node_;
    uint64_t instance_;
    Callbacks callbacks_;
    sim::external::SessionId session_ = 0;
    int64_t token_ = 0;
    bool gave_up_ = false;
    uint64_t contend_round_ = 0;
    bool suspended_ = false;  // a keep-alive went unanswered; the next answered one re-contends
    sim::Time last_renewed_ = sim::Time::zero();  // when the last answered keep-alive was sent
};

}  // namespace eosim::engine
