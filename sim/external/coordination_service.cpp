#include "sim/external/coordination_service.h"

#include "sim/invariant.h"

namespace eosim::sim::external {

namespace {
constexpr EventKind kRequest{"coordination.request"};
constexpr EventKind kAnswer{"coordination.answer"};
constexpr EventKind kRequestTimeout{"coordination.request_timeout"};
constexpr EventKind kSessionExpiry{"coordination.session_expiry"};
constexpr EventKind kWatchEvent{"coordination.watch_event"};
}  // namespace

const char* to_string(CoordinationStatus status) {
    switch (status) {
        case CoordinationStatus::ok: return "ok";
        case CoordinationStatus::connection_loss: return "connection_loss";
        case CoordinationStatus::no_node: return "no_node";
        case CoordinationStatus::node_exists: return "node_exists";
        case CoordinationStatus::bad_version: return "bad_version";
        case CoordinationStatus::session_expired: return "session_expired";
        case CoordinationStatus::fenced: return "fenced";
        case CoordinationStatus::write_failed: return "write_failed";
    }
    return "?";
}

CoordinationService::CoordinationService(Scheduler& scheduler, Network& network, NodeId node,
                                         Duration request_timeout)
    : scheduler_(scheduler), network_(network), node_(node), request_timeout_(request_timeout) {
    EOSIM_INVARIANT(node < scheduler.nodes().size(),
                    "the coordination service runs on a known node");
}

void CoordinationService::booted() {
    // Every session gets its full timeout again (the ensemble's new leader does that).
    for (auto& [id, session] : sessions_) arm_expiry(id);
}

void CoordinationService::call(NodeId caller, std::function<std::function<void()>()> apply,
                               std::function<void()> lost) {
    if (!scheduler_.nodes().is_up(caller)) return;
    auto answered = std::make_shared<bool>(false);
    const uint64_t digest = digest_mix(caller, stats_.requests);
    network_.send_datagram(caller, node_, kRequest, digest,
                           [this, caller, digest, answered, apply = std::move(apply)] {
                               if (scheduler_.now() < unavailable_until_) {  // answers nothing
                                   ++stats_.refused_by_fault;
                                   return;
                               }
                               ++stats_.requests;
                               std::function<void()> answer = apply();
                               network_.send_datagram(node_, caller, kAnswer, digest,
                                                      [answered, answer = std::move(answer)] {
                                                          if (*answered) return;
                                                          *answered = true;
                                                          answer();
                                                      });
                           });
    scheduler_.schedule(request_timeout_, caller, kRequestTimeout, digest,
                        [answered, lost = std::move(lost)] {
                            if (*answered) return;
                            *answered = true;
                            lost();
                        });
}

bool CoordinationService::renew(SessionId session) {
    if (!sessions_.contains(session)) return false;
    arm_expiry(session);
    return true;
}

void CoordinationService::arm_expiry(SessionId id) {
    Session& session = sessions_.at(id);
    const uint64_t generation = ++session.generation;
    scheduler_.schedule(session.timeout, node_, kSessionExpiry, static_cast<uint64_t>(id),
                        [this, id, generation] {
                            auto it = sessions_.find(id);
                            if (it != sessions_.end() && it->second.generation == generation)
                                expire(id);
                        });
}

void CoordinationService::expire(SessionId id) {
    sessions_.erase(id);
    ++stats_.sessions_expired;
    std::vector<std::string> ephemeral;
    for (const auto& [path, node] : nodes_) {
        if (node.owner == id) ephemeral.push_back(path);
    }
    for (const std::string& path : ephemeral) {
        nodes_.erase(path);
        changed(path);
    }
    for (auto it = watches_.begin(); it != watches_.end();)
        it = it->second.session == id ? watches_.erase(it) : std::next(it);
}

void CoordinationService::expire_sessions_of(NodeId client) {
    std::vector<SessionId> of_client;
    for (const auto& [id, session] : sessions_) {
        if (session.client == client) of_client.push_back(id);
    }
    for (SessionId id : of_client) expire(id);
}

bool CoordinationService::fence_holds(const std::optional<Fence>& fence) const {
    if (!fence) return true;
    auto it = nodes_.find(fence->path);
    return it != nodes_.end() && it->second.owner == fence->session && fence->session != 0;
}

CoordinationStatus CoordinationService::admit_write(SessionId session,
                                                    const std::optional<Fence>& fence) {
    if (!renew(session)) return CoordinationStatus::session_expired;
    if (scheduler_.now() < write_errors_until_) {
        ++stats_.refused_by_fault;
        return CoordinationStatus::write_failed;
    }
    if (!fence_holds(fence)) {
        ++stats_.fenced_writes;
        return CoordinationStatus::fenced;
    }
    return CoordinationStatus::ok;
}

void CoordinationService::changed(const std::string& path) {
    auto [first, last] = watches_.equal_range(path);
    std::vector<Watch> fired;
    for (auto it = first; it != last; ++it) fired.push_back(std::move(it->second));
    watches_.erase(first, last);
    for (Watch& watch : fired) {
        ++stats_.watches_fired;
        network_.send_datagram(node_, watch.client, kWatchEvent, digest_of(path),
                               std::move(watch.watcher));
    }
}

// ---- requests ----------------------------------------------------------------------------------

void CoordinationService::open_session(NodeId caller, Duration timeout, Opened done) {
    auto shared = std::make_shared<Opened>(std::move(done));
    call(
        caller,
        [this, caller, timeout, shared] {
            const SessionId id = next_session_++;
            sessions_[id] = Session{caller, timeout, 0};
            arm_expiry(id);
            return std::function<void()>([shared, id] { (*shared)(CoordinationStatus::ok, id); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss, 0); });
}

void CoordinationService::keep_alive(NodeId caller, SessionId session, Done done) {
    auto shared = std::make_shared<Done>(std::move(done));
    call(
        caller,
        [this, session, shared] {
            const CoordinationStatus status =
                renew(session) ? CoordinationStatus::ok : CoordinationStatus::session_expired;
            return std::function<void()>([shared, status] { (*shared)(status); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss); });
}

void CoordinationService::create(NodeId caller, SessionId session, const std::string& path,
                                 const std::string& value, bool ephemeral,
                                 std::optional<Fence> fence, Created done) {
    auto shared = std::make_shared<Created>(std::move(done));
    call(
        caller,
        [this, session, path, value, ephemeral, fence = std::move(fence), shared] {
            CoordinationStatus status = admit_write(session, fence);
            int64_t zxid = 0;
            if (status == CoordinationStatus::ok && nodes_.contains(path))
                status = CoordinationStatus::node_exists;
            if (status == CoordinationStatus::ok) {
                zxid = ++zxid_;
                nodes_[path] = CoordinationNode{value, 0, zxid, ephemeral ? session : 0};
                ++stats_.writes_applied;
                changed(path);
            }
            return std::function<void()>([shared, status, zxid] { (*shared)(status, zxid); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss, 0); });
}

void CoordinationService::get(NodeId caller, SessionId session, const std::string& path, Read done,
                              Watcher watch) {
    auto shared = std::make_shared<Read>(std::move(done));
    call(
        caller,
        [this, caller, session, path, watch = std::move(watch), shared]() mutable {
            CoordinationStatus status =
                renew(session) ? CoordinationStatus::ok : CoordinationStatus::session_expired;
            CoordinationNode node;
            if (status == CoordinationStatus::ok) {
                auto it = nodes_.find(path);
                if (it == nodes_.end()) {
                    status = CoordinationStatus::no_node;
                } else {
                    node = it->second;
                }
                if (watch) watches_.emplace(path, Watch{caller, session, std::move(watch)});
            }
            return std::function<void()>(
                [shared, status, node = std::move(node)] { (*shared)(status, node); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss, CoordinationNode{}); });
}

void CoordinationService::set(NodeId caller, SessionId session, const std::string& path,
                              const std::string& value, int64_t expected_version,
                              std::optional<Fence> fence, Done done) {
    auto shared = std::make_shared<Done>(std::move(done));
    call(
        caller,
        [this, session, path, value, expected_version, fence = std::move(fence), shared] {
            CoordinationStatus status = admit_write(session, fence);
            auto it = nodes_.find(path);
            if (status == CoordinationStatus::ok && it == nodes_.end())
                status = CoordinationStatus::no_node;
            if (status == CoordinationStatus::ok && expected_version >= 0 &&
                it->second.version != expected_version) {
                status = CoordinationStatus::bad_version;
            }
            if (status == CoordinationStatus::ok) {
                it->second.value = value;
                ++it->second.version;
                ++zxid_;
                ++stats_.writes_applied;
                changed(path);
            }
            return std::function<void()>([shared, status] { (*shared)(status); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss); });
}

void CoordinationService::remove(NodeId caller, SessionId session, const std::string& path,
                                 int64_t expected_version, std::optional<Fence> fence, Done done) {
    auto shared = std::make_shared<Done>(std::move(done));
    call(
        caller,
        [this, session, path, expected_version, fence = std::move(fence), shared] {
            CoordinationStatus status = admit_write(session, fence);
            auto it = nodes_.find(path);
            if (status == CoordinationStatus::ok && it == nodes_.end())
                status = CoordinationStatus::no_node;
            if (status == CoordinationStatus::ok && expected_version >= 0 &&
                it->second.version != expected_version) {
                status = CoordinationStatus::bad_version;
            }
            if (status == CoordinationStatus::ok) {
                nodes_.erase(it);
                ++zxid_;
                ++stats_.writes_applied;
                changed(path);
            }
            return std::function<void()>([shared, status] { (*shared)(status); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss); });
}

void CoordinationService::list(NodeId caller, SessionId session, const std::string& prefix,
                               Listed done) {
    auto shared = std::make_shared<Listed>(std::move(done));
    call(
        caller,
        [this, session, prefix, shared] {
            const CoordinationStatus status =
                renew(session) ? CoordinationStatus::ok : CoordinationStatus::session_expired;
            std::vector<std::pair<std::string, CoordinationNode>> found;
            if (status == CoordinationStatus::ok) {
                for (auto it = nodes_.lower_bound(prefix);
                     it != nodes_.end() && it->first.starts_with(prefix); ++it) {
                    found.emplace_back(it->first, it->second);
                }
            }
            return std::function<void()>(
                [shared, status, found = std::move(found)] { (*shared)(status, found); });
        },
        [shared] { (*shared)(CoordinationStatus::connection_loss, {}); });
}

}  // namespace eosim::sim::external
