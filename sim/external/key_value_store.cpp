#include "sim/external/key_value_store.h"

namespace eosim::sim::external {

const char* to_string(KeyValueError error) {
    switch (error) {
        case KeyValueError::none: return "none";
        case KeyValueError::unavailable: return "unavailable";
        case KeyValueError::write_failed: return "write_failed";
        case KeyValueError::timeout: return "timeout";
    }
    return "unknown";
}

KeyValueStore::KeyValueStore(Scheduler& scheduler, Network& network, NodeId node)
    : OutsideSystem(scheduler, network, node) {}

KeyValueStore::Entry* KeyValueStore::live(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    if (now() >= it->second.expires_at) {
        entries_.erase(it);
        return nullptr;
    }
    return &it->second;
}

bool KeyValueStore::admit_write_or(NodeId caller, KeyValueResult* failure) {
    bool unreachable = false;
    if (admit_write(caller, &unreachable)) return true;
    failure->error = unreachable ? KeyValueError::unavailable : KeyValueError::write_failed;
    return false;
}

namespace {

std::string ttl_text(std::optional<Duration> ttl) {
    return ttl ? " EX " + std::to_string(ttl->ns / 1'000'000) + "ms" : std::string();
}

std::string answer(const KeyValueResult& r) {
    if (r.error == KeyValueError::timeout)
        return "timeout (no answer: it may have applied, or may still land)";
    if (r.error != KeyValueError::none) return to_string(r.error);
    std::string out = r.value ? std::to_string(*r.value) : std::string("nil");
    return out + (r.applied ? " (changed)" : "");
}

}  // namespace

KeyValueResult KeyValueStore::write_call(NodeId caller, const std::function<std::string()>& call,
                                         std::function<KeyValueResult()> apply) {
    KeyValueResult result;
    if (admit_write_or(caller, &result)) {
        result = deliver_write<KeyValueResult>(caller, call, std::move(apply),
                                               KeyValueResult{KeyValueError::timeout, {}, false});
    }
    races().note(caller, call, [&] { return answer(result); });
    return result;
}

KeyValueResult KeyValueStore::get(NodeId caller, const std::string& key) {
    KeyValueResult result;
    if (!admit(caller)) {
        result.error = KeyValueError::unavailable;
    } else if (const Entry* entry = live(key)) {
        result.value = entry->value;
    }
    races().note(
        caller, [&] { return "GET " + key; }, [&] { return answer(result); });
    return result;
}

KeyValueResult KeyValueStore::set(NodeId caller, const std::string& key, int64_t value,
                                  std::optional<Duration> ttl) {
    return write_call(
        caller, [&] { return "SET " + key + " " + std::to_string(value) + ttl_text(ttl); },
        [this, key, value, ttl] {
            KeyValueResult result;
            const Time expires_at = ttl ? now() + *ttl : Time::never();
            Entry* entry = live(key);
            if (entry != nullptr && entry->value == value && entry->expires_at == expires_at) {
                count_absorbed();
            } else {
                entries_[key] = Entry{value, expires_at};
                count_applied();
                result.applied = true;
            }
            result.value = value;
            return result;
        });
}

KeyValueResult KeyValueStore::setnx(NodeId caller, const std::string& key, int64_t value,
                                    std::optional<Duration> ttl) {
    return write_call(
        caller, [&] { return "SETNX " + key + " " + std::to_string(value) + ttl_text(ttl); },
        [this, key, value, ttl] {
            KeyValueResult result;
            if (const Entry* entry = live(key)) {
                result.value = entry->value;
                count_absorbed();
                return result;
            }
            entries_[key] = Entry{value, ttl ? now() + *ttl : Time::never()};
            result.applied = true;
            result.value = value;
            count_applied();
            return result;
        });
}

KeyValueResult KeyValueStore::incrby(NodeId caller, const std::string& key, int64_t delta) {
    return write_call(
        caller, [&] { return "INCRBY " + key + " " + std::to_string(delta); },
        [this, key, delta] {
            KeyValueResult result;
            Entry* entry = live(key);
            if (entry == nullptr) entry = &entries_[key];
            entry->value += delta;
            result.value = entry->value;
            result.applied = true;
            count_applied();
            return result;
        });
}

KeyValueResult KeyValueStore::del(NodeId caller, const std::string& key) {
    return write_call(
        caller, [&] { return "DEL " + key; },
        [this, key] {
            KeyValueResult result;
            if (live(key) != nullptr) {
                entries_.erase(key);
                result.applied = true;
                count_applied();
            } else {
                count_absorbed();
            }
            return result;
        });
}

KeyValueResult KeyValueStore::expire(NodeId caller, const std::string& key, Duration ttl) {
    return write_call(
        caller, [&] { return "EXPIRE " + key + ttl_text(ttl); },
        [this, key, ttl] {
            KeyValueResult result;
            if (Entry* entry = live(key)) {
                entry->expires_at = now() + ttl;
                result.value = entry->value;
                result.applied = true;
                count_applied();
            }
            return result;
        });
}

KeyValueResult KeyValueStore::set_if_absent_then_incrby(NodeId caller, const std::string& dedup_key,
                                                        const std::string& counter_key,
                                                        int64_t delta,
                                                        std::optional<Duration> dedup_ttl) {
    return write_call(
        caller,
        [&] {
            return "script SETNX " + dedup_key + ttl_text(dedup_ttl) + " then INCRBY " +
                   counter_key + " " + std::to_string(delta);
        },
        [this, dedup_key, counter_key, delta, dedup_ttl] {
            KeyValueResult result;
            if (live(dedup_key) != nullptr) {  // seen before: the whole script changes nothing
                if (const Entry* counter = live(counter_key)) result.value = counter->value;
                count_absorbed();
                return result;
            }
            entries_[dedup_key] = Entry{1, dedup_ttl ? now() + *dedup_ttl : Time::never()};
            Entry* counter = live(counter_key);
            if (counter == nullptr) counter = &entries_[counter_key];
            counter->value += delta;
            result.value = counter->value;
            result.applied = true;
            count_applied();
            return result;
        });
}

KeyValueResult KeyValueStore::compare_and_set(NodeId caller, const std::string& key,
                                              std::optional<int64_t> expected, int64_t value) {
    return write_call(
        caller,
        [&] {
            return "script SET " + key + " " + std::to_string(value) + " IF " +
                   (expected ? "= " + std::to_string(*expected) : std::string("absent"));
        },
        [this, key, expected, value] {
            KeyValueResult result;
            Entry* entry = live(key);
            const std::optional<int64_t> current =
                entry != nullptr ? std::optional<int64_t>(entry->value) : std::nullopt;
            if (current != expected) {
                result.value = current;
                count_absorbed();
                return result;
            }
            if (entry == nullptr) {
                entries_[key] = Entry{value, Time::never()};
            } else {
                entry->value = value;  // the TTL stays, as with a Lua SET ... KEEPTTL
            }
            result.value = value;
            result.applied = true;
            count_applied();
            return result;
        });
}

std::map<std::string, int64_t> KeyValueStore::entries(const std::string& prefix) const {
    std::map<std::string, int64_t> out;
    for (auto it = entries_.lower_bound(prefix); it != entries_.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (now() < it->second.expires_at) out.emplace(it->first, it->second.value);
    }
    return out;
}

std::optional<int64_t> KeyValueStore::peek(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end() || now() >= it->second.expires_at) return std::nullopt;
    return it->second.value;
}

}  // namespace eosim::sim::external
