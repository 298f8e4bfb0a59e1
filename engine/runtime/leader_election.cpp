#include "engine/runtime/leader_election.h"

#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kKeepAlive{"ha.keep_alive"};
constexpr sim::EventKind kRetry{"ha.retry"};
using sim::external::CoordinationNode;
using sim::external::CoordinationStatus;
}  // namespace

LeaderElection::LeaderElection(Engine& engine, sim::NodeId node, uint64_t instance,
                               Callbacks callbacks)
    : engine_(engine), node_(node), instance_(instance), callbacks_(std::move(callbacks)) {}

template <typename F>
auto LeaderElection::bound(F f) {
    return
        [engine = &engine_, node = node_, instance = instance_, f = std::move(f)](auto&&... args) {
            if (JobManager* jm = engine->job_manager_on(node, instance)) {
                if (LeaderElection* election = jm->election()) f(*election, args...);
            }
        };
}

sim::external::CoordinationService& LeaderElection::service() {
    return *engine_.high_availability().service;
}

std::string LeaderElection::path(const std::string& leaf) const {
    return "/eosim/" + engine_.job().name + "/" + leaf;
}

void LeaderElection::start() { open(); }

void LeaderElection::open() {
    const sim::Time sent = engine_.world().now();
    service().open_session(node_, engine_.high_availability().session_timeout,
                           bound([sent](LeaderElection& e, CoordinationStatus status,
                                        sim::external::SessionId session) {
                               if (status != CoordinationStatus::ok) {
                                   // Try again later; a session opened but unanswered simply
                                   // expires.
                                   e.engine_.world().scheduler().schedule(
                                       e.engine_.job().runtime.heartbeat_interval, e.node_, kRetry,
                                       0, e.bound([](LeaderElection& again) { again.open(); }));
                                   return;
                               }
                               e.session_ = session;
                               e.last_renewed_ = sent;
                               e.keep_alive_round();
                               e.contend();
                           }));
}

void LeaderElection::contend() {
    if (gave_up_ || leading()) return;
    const uint64_t round = ++contend_round_;
    service().create(
        node_, session_, leader_path(), engine_.world().nodes().name(node_), true, std::nullopt,
        bound([round](LeaderElection& e, CoordinationStatus status, int64_t zxid) {
            if (e.gave_up_ || e.leading()) return;
            if (status == CoordinationStatus::ok) {  // also an older round's: the node is ours
                e.lead(zxid);
                return;
            }
            if (status == CoordinationStatus::session_expired) {
                e.give_up("session expired");
                return;
            }
            if (e.contend_round_ != round) return;  // a later round took over
            if (status == CoordinationStatus::node_exists) {
                e.watch_leader(round);
            } else {  // connection loss, write errors: again later
                e.retry_contend(round);
            }
        }));
}

void LeaderElection::watch_leader(uint64_t round) {
    service().get(
        node_, session_, leader_path(),
        bound([round](LeaderElection& e, CoordinationStatus read, const CoordinationNode& leader) {
            if (e.gave_up_ || e.leading() || e.contend_round_ != round) return;
            if (read == CoordinationStatus::ok && leader.owner == e.session_) {
                e.lead(leader.created_zxid);  // a create of ours applied, its answer lost
                                              // (LeaderLatch checks its own node too)
            } else if (read == CoordinationStatus::no_node) {
                e.contend();
            } else if (read == CoordinationStatus::connection_loss) {
                e.retry_contend(round);
            } else if (read == CoordinationStatus::session_expired) {
                e.give_up("session expired");
            }
        }),
        bound([round](LeaderElection& e) {
            if (e.contend_round_ == round) e.contend();
        }));
}

void LeaderElection::retry_contend(uint64_t round) {
    engine_.world().scheduler().schedule(engine_.job().runtime.heartbeat_interval, node_, kRetry, 0,
                                         bound([round](LeaderElection& again) {
                                             if (again.contend_round_ == round) again.contend();
                                         }));
}

void LeaderElection::lead(int64_t token) {
    token_ = token;
    ++engine_.stats().leaderships;
    callbacks_.granted(token);
}

void LeaderElection::keep_alive_round() {
    if (gave_up_) return;
    const sim::Duration timeout = engine_.high_availability().session_timeout;
    const sim::Time now = engine_.world().now();
    if (now - last_renewed_ >= timeout &&
        !engine_.high_availability().tolerate_suspended_connections) {
        give_up("no answer from the coordination service for the session timeout");
        return;
    }
    service().keep_alive(
        node_, session_, bound([now](LeaderElection& e, CoordinationStatus status) {
            if (status == CoordinationStatus::connection_loss) e.suspended_ = true;
            if (status == CoordinationStatus::session_expired) e.give_up("session expired");
            if (status != CoordinationStatus::ok) return;
            e.last_renewed_ = std::max(e.last_renewed_, now);
            if (e.suspended_) {  // reconnected: what happened meanwhile may have gone unseen
                e.suspended_ = false;
                e.contend();
            }
        }));
    engine_.world().scheduler().schedule(timeout / 3, node_, kKeepAlive, 0,
                                         bound([](LeaderElection& e) { e.keep_alive_round(); }));
}

void LeaderElection::confirm(std::function<void(bool)> done) {
    if (!leading()) {
        done(false);
        return;
    }
    service().set(node_, session_, leader_path(), engine_.world().nodes().name(node_), -1, fence(),
                  bound([done = std::move(done)](LeaderElection& e, CoordinationStatus status) {
                      if (status == CoordinationStatus::session_expired ||
                          status == CoordinationStatus::fenced ||
                          status == CoordinationStatus::no_node) {
                          done(false);
                          e.give_up("no longer the leader");
                          return;
                      }
                      done(status == CoordinationStatus::ok);
                  }));
}

void LeaderElection::give_up(const std::string& why) {
    if (gave_up_) return;
    gave_up_ = true;
    callbacks_.revoked(why);
}

}  // namespace eosim::engine
