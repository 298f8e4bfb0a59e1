#include "sim/storage.h"

#include "sim/invariant.h"

namespace eosim::sim {

namespace {
constexpr EventKind kStorageApply{"storage.apply"};
constexpr EventKind kStorageDone{"storage.done"};
}  // namespace

DurableStorage::DurableStorage(Scheduler& scheduler, Prng prng, StorageOptions options)
    : scheduler_(scheduler), prng_(prng), options_(options) {
    EOSIM_INVARIANT(
        options_.latency.min >= Duration::zero() && options_.latency.min <= options_.latency.max,
        "the store's latency range is ordered and never negative: an operation completes after it is issued");
}

void DurableStorage::slow_until(Time until, uint32_t multiplier) {
    EOSIM_INVARIANT(multiplier >= 1, "a slow store is not faster");
    slow_until_ = until;
    slow_multiplier_ = multiplier;
}

void DurableStorage::annotate(uint64_t digest, std::string_view what, const std::string& path) {
    if (scheduler_.trace().logging())
        scheduler_.trace().annotate(digest, std::string(what) + " " + path);
}

void DurableStorage::submit(NodeId caller, uint64_t digest,
                            std::function<std::function<void()>(bool)> apply) {
    EOSIM_INVARIANT(caller < scheduler_.nodes().size(),
                    "a storage operation comes from a known node");
    if (!scheduler_.nodes().is_up(caller)) return;
    Duration latency = prng_.duration_between(options_.latency.min, options_.latency.max);
    if (scheduler_.now() < slow_until_) {
        latency = latency * slow_multiplier_;
        ++slowed_by_fault_;
    }
    const bool random_failure = prng_.chance(options_.failure);
    const uint32_t incarnation = scheduler_.nodes().incarnation(caller);
    scheduler_.schedule(
        latency, kNoNode, kStorageApply, digest,
        [this, caller, incarnation, digest, random_failure, apply = std::move(apply)] {
            const bool failed = random_failure || scheduler_.now() < failing_until_;
            if (!random_failure && failed) ++failed_by_fault_;
            std::function<void()> reply = apply(failed);
            const uint32_t now_incarnation = scheduler_.nodes().incarnation(caller);
            EOSIM_INVARIANT(now_incarnation >= incarnation,
                            "a node's incarnations only go forward");
            if (now_incarnation != incarnation) return;
            scheduler_.schedule(Duration::zero(), caller, kStorageDone, digest, std::move(reply));
        });
}

void DurableStorage::put(NodeId caller, std::string key, std::string value, Done done) {
    const uint64_t digest = digest_mix(digest_of(key), digest_of(value));
    annotate(digest, "put", key);
    submit(caller, digest,
           [this, key = std::move(key), value = std::move(value),
            done = std::move(done)](bool failed) mutable {
               if (!failed) blobs_[key] = std::move(value);
               return std::function<void()>([done = std::move(done), failed] {
                   done(failed ? StorageStatus::failed : StorageStatus::ok);
               });
           });
}

void DurableStorage::get(NodeId caller, std::string key, GetDone done) {
    const uint64_t digest = digest_of(key);
    annotate(digest, "get", key);
    submit(caller, digest,
           [this, key = std::move(key), done = std::move(done)](bool failed) mutable {
               StorageStatus status = StorageStatus::failed;
               std::string value;
               if (!failed) {
                   auto it = blobs_.find(key);
                   status = it == blobs_.end() ? StorageStatus::not_found : StorageStatus::ok;
                   if (it != blobs_.end()) value = it->second;
               }
               return std::function<void()>(
                   [done = std::move(done), status, value = std::move(value)]() mutable {
                       done(status, std::move(value));
                   });
           });
}

void DurableStorage::remove(NodeId caller, std::string key, Done done) {
    // Each operation mixed in, so that a get and a remove of one path differ in the trace.
    const uint64_t digest = digest_mix(digest_of(key), digest_of("remove"));
    if (!scheduler_.nodes().is_up(caller)) return;
    ++removals_in_flight_[key];
    annotate(digest, "remove", key);
    submit(caller, digest,
           [this, key = std::move(key), done = std::move(done)](bool failed) mutable {
               const auto it = removals_in_flight_.find(key);
               EOSIM_INVARIANT(it != removals_in_flight_.end() && it->second > 0,
                               "a remove applied is a remove issued and not yet applied");
               if (--it->second == 0) removals_in_flight_.erase(it);
               if (!failed) blobs_.erase(key);
               return std::function<void()>([done = std::move(done), failed] {
                   done(failed ? StorageStatus::failed : StorageStatus::ok);
               });
           });
}

void DurableStorage::list(NodeId caller, std::string prefix, ListDone done) {
    const uint64_t digest = digest_mix(digest_of(prefix), digest_of("list"));
    annotate(digest, "list", prefix);
    submit(caller, digest,
           [this, prefix = std::move(prefix), done = std::move(done)](bool failed) mutable {
               std::vector<std::string> keys;
               if (!failed) {
                   for (auto it = blobs_.lower_bound(prefix);
                        it != blobs_.end() && it->first.starts_with(prefix); ++it) {
                       keys.push_back(it->first);
                   }
               }
               return std::function<void()>(
                   [done = std::move(done), failed, keys = std::move(keys)]() mutable {
                       done(failed ? StorageStatus::failed : StorageStatus::ok, std::move(keys));
                   });
           });
}

uint64_t DurableStorage::bytes_stored() const {
    uint64_t total = 0;
    for (const auto& [key, value] : blobs_) total += key.size() + value.size();
    return total;
}

}  // namespace eosim::sim
