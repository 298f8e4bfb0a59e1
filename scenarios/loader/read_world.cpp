// The loader's world and database sections (scenarios/loader/loader.h).
#include "scenarios/loader/loader.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/run_limits.h"

namespace eosim::scenarios::loading {

// --- world ---

void Loader::read_world(const Value& v) {
    const Object o(v, {"task_managers", "slots_per_task_manager", "spare_task_managers",
                       "evenly_spread_out_slots", "network", "storage", "kafka", "topics"});
    WorldSpec& w = s_.world;
    if (auto x = o.get("task_managers"))
        w.task_managers = read_int32(*x, IntRange{1, 1024, "a positive integer"});
    if (auto x = o.get("slots_per_task_manager")) {
        w.slots_per_task_manager = read_int32(*x, IntRange{1, 1024, "a positive integer"});
    }
    if (auto x = o.get("spare_task_managers")) {
        w.spare_task_managers = read_int32(*x, IntRange{0, 1024, "a non-negative integer"});
    }
    if (auto x = o.get("evenly_spread_out_slots")) w.evenly_spread_out_slots = read_bool(*x);
    if (w.task_managers + w.spare_task_managers > kMaxTaskManagers) {
        (o.has("spare_task_managers") ? *o.get("spare_task_managers") : *o.get("task_managers"))
            .fail("expected " +
                  within_limit(kMaxTaskManagers, "task managers and spares together",
                               "kMaxTaskManagers") +
                  ", found " + std::to_string(w.task_managers) + " + " +
                  std::to_string(w.spare_task_managers));
    }
    if (int64_t{w.task_managers} * w.slots_per_task_manager > kMaxSlots) {
        (o.has("slots_per_task_manager") ? *o.get("slots_per_task_manager")
                                         : *o.get("task_managers"))
            .fail("expected " +
                  within_limit(kMaxSlots, "slots (task_managers x slots_per_task_manager)",
                               "kMaxSlots") +
                  ", found " + std::to_string(w.task_managers) + " x " +
                  std::to_string(w.slots_per_task_manager));
    }
    if (auto x = o.get("network")) read_network(*x);
    if (auto x = o.get("storage")) read_storage(*x);
    if (auto x = o.get("kafka")) read_kafka(*x);
    // A CDC job over a database needs no topic.
    if (!has_database_ || o.has("topics")) read_topics(o.require("topics", "an array of topics"));
}

void Loader::read_topics(const Value& v) {
    for_each_element(v, "an array of topics", [&](const Value& element) {
        const Object o(element, {"name", "partitions"}, "an object (a topic)");
        TopicSpec topic;
        const Value name = o.require("name", "a non-empty string");
        topic.name = read_string(name);
        if (topic_exists(topic.name)) name.fail("duplicate topic name " + in_quotes(topic.name));
        if (auto x = o.get("partitions")) {
            topic.partitions = read_int32(*x, IntRange{1, 100'000, "a positive integer"});
            if (topic_partitions_ + topic.partitions > kMaxTopicPartitions) {
                x->expected(within_limit(kMaxTopicPartitions - topic_partitions_,
                                         "partitions (of all topics together: " +
                                             std::to_string(kMaxTopicPartitions) + ")",
                                         "kMaxTopicPartitions"));
            }
        }
        topic_partitions_ += topic.partitions;
        s_.world.topics.push_back(topic);
    });
    if (s_.world.topics.empty()) v.fail("expected at least one topic, found an empty array");
}

void Loader::read_network(const Value& v) {
    const Object o(v, {"latency", "local_latency", "datagram_loss"});
    sim::NetworkOptions& n = s_.world.network;
    if (auto x = o.get("latency")) n.remote = read_latency(*x, n.remote);
    if (auto x = o.get("local_latency")) n.local = read_latency(*x, n.local);
    if (auto x = o.get("datagram_loss")) n.datagram_loss = read_ratio(*x);
}

void Loader::read_storage(const Value& v) {
    const Object o(v, {"latency", "failure"});
    sim::StorageOptions& st = s_.world.storage;
    if (auto x = o.get("latency")) st.latency = read_latency(*x, st.latency);
    if (auto x = o.get("failure")) st.failure = read_ratio(*x);
}

void Loader::read_kafka(const Value& v) {
    const Object o(v, {"transaction_timeout", "fencing", "read_committed_ignores_lso",
                       "timer_restarts_on_write"});
    sim::external::KafkaOptions& k = s_.world.kafka;
    if (auto x = o.get("transaction_timeout")) k.transaction_timeout = read_duration(*x, false);
    if (auto x = o.get("fencing")) k.fencing = read_bool(*x);
    if (auto x = o.get("read_committed_ignores_lso")) k.read_committed_ignores_lso = read_bool(*x);
    if (auto x = o.get("timer_restarts_on_write")) k.timer_restarts_on_write = read_bool(*x);
}

bool Loader::topic_exists(const std::string& name) const {
    return std::any_of(s_.world.topics.begin(), s_.world.topics.end(),
                       [&](const TopicSpec& t) { return t.name == name; });
}

int32_t Loader::topic_partitions(const std::string& name) const {
    for (const TopicSpec& t : s_.world.topics) {
        if (t.name == name) return t.partitions;
    }
    return 0;
}

std::vector<std::string> Loader::topic_names() const {
    std::vector<std::string> names;
    for (const TopicSpec& t : s_.world.topics) names.push_back(t.name);
    return names;
}

void Loader::read_high_availability(const Value& v) {
    const Object o(v,
                   {"job_managers", "session_timeout", "request_timeout",
                    "tolerate_suspended_connections", "tell_leader_loss"},
                   "an object (high availability)");
    HighAvailabilitySpec& ha = s_.high_availability.emplace();
    if (auto x = o.get("job_managers"))
        ha.job_managers = read_int32(*x, IntRange{1, 16, "an integer in [1, 16]"});
    if (auto x = o.get("session_timeout")) ha.session_timeout = read_duration(*x, false);
    if (auto x = o.get("request_timeout")) ha.request_timeout = read_duration(*x, false);
    if (auto x = o.get("tolerate_suspended_connections"))
        ha.tolerate_suspended_connections = read_bool(*x);
    if (auto x = o.get("tell_leader_loss")) ha.tell_leader_loss = read_bool(*x);
    if (ha.session_timeout < sim::Duration::millis(30)) {
        o.get("session_timeout")
            ->fail(
                "expected a session_timeout of at least 30ms (keep-alives go every third of it), found " +
                format_duration(ha.session_timeout));
    }
}

// "jobmanager", "tm0".."tm{N-1}", then the spares "tm{N}"..; with HA the standby JobManagers
// "jobmanager-1".. and "coordination"; then the outside systems.
std::vector<std::string> Loader::node_names() const {
    std::vector<std::string> names{"jobmanager"};
    for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
        names.push_back("tm" + std::to_string(i));
    }
    if (s_.high_availability) {
        for (int32_t i = 1; i < s_.high_availability->job_managers; ++i)
            names.push_back("jobmanager-" + std::to_string(i));
        names.push_back("coordination");
    }
    for (size_t d = 1; d <= s_.deployments.size(); ++d) {  // a later deployment's cluster
        const std::string suffix = Scenario::deployment_suffix(d);
        names.push_back("jobmanager" + suffix);
        for (int32_t i = 1; s_.high_availability && i < s_.high_availability->job_managers; ++i) {
            names.push_back("jobmanager-" + std::to_string(i) + suffix);
        }
        for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
            names.push_back("tm" + std::to_string(i) + suffix);
        }
    }
    for (size_t d = 1; d <= s_.deployments.size(); ++d) {  // a verification job's cluster
        if (!s_.deployments[d - 1].verification) continue;
        const std::string suffix = Scenario::verification_suffix(d);
        names.push_back("jobmanager" + suffix);
        for (int32_t i = 1; s_.high_availability && i < s_.high_availability->job_managers; ++i) {
            names.push_back("jobmanager-" + std::to_string(i) + suffix);
        }
        for (int32_t i = 0; i < s_.world.task_managers + s_.world.spare_task_managers; ++i) {
            names.push_back("tm" + std::to_string(i) + suffix);
        }
    }
    names.push_back("kafka");
    names.push_back("append-store");
    if (s_.database) names.push_back("mysql-source");
    if (s_.has_upsert_sink()) names.push_back("mysql-target");
    for (const std::string& system : optional_outside_system_names())
        names.push_back(system);  // each on its own node
    return names;
}

// --- database ---

void Loader::read_database(const Value& v) {
    const Object o(v, {"binlog", "tables", "workload"});
    DatabaseSpec& d = s_.database.emplace();
    if (auto x = o.get("binlog")) {
        const Object b(*x, {"file_bytes", "retain_files", "expire_logs_seconds"});
        if (auto y = b.get("file_bytes")) {
            d.options.binlog_file_bytes =
                read_int(*y, IntRange{sim::external::Database::kEventBytes,
                                      std::numeric_limits<int64_t>::max(),
                                      "a number of bytes of at least one event (40)"});
        }
        if (auto y = b.get("retain_files")) d.options.retain_files = read_int32(*y, kNonNegative32);
        if (auto y = b.get("expire_logs_seconds")) {
            const int32_t seconds = read_int32(
                *y, IntRange{0, 4'294'967, "a number of seconds in [0, 4294967] (MySQL's range)"});
            d.options.binlog_expire = sim::Duration::seconds(seconds);
        }
    }
    const Value tables = o.require("tables", "an array of tables");
    for_each_element(tables, "an array of tables", [&](const Value& element) {
        const Object t(element, {"name", "initial_rows"}, "an object (a table)");
        sim::external::DatabaseTableSpec table;
        const Value name = t.require("name", "a non-empty string");
        table.name = read_string(name);
        for (const auto& other : d.tables) {
            if (other.name == table.name)
                name.fail("duplicate table name " + in_quotes(table.name));
        }
        if (auto x = t.get("initial_rows"))
            table.initial_rows = read_int(*x, IntRange{0, 10'000'000, "a non-negative integer"});
        d.tables.push_back(table);
    });
    if (d.tables.empty()) tables.fail("expected at least one table, found an empty array");
    read_workload(o.require("workload", "an object (the workload)"));
}

void Loader::read_workload(const Value& v) {
    const Object o(v, {"table", "transactions", "statements", "keys", "rate_per_second",
                       "delete_ratio", "rollback_ratio", "value_min", "value_max"});
    DatabaseSpec& d = *s_.database;
    sim::external::DatabaseWorkloadSpec& w = d.workload;
    const Value table = o.require("table", "the name of a table in /database/tables");
    w.table = read_string(table);
    std::vector<std::string> names;
    for (const auto& t : d.tables) names.push_back(t.name);
    if (std::find(names.begin(), names.end(), w.table) == names.end()) {
        table.expected("a table listed in /database/tables (" + join(names) + ")");
    }
    if (auto x = o.get("transactions"))
        w.transactions = read_int(*x, IntRange{0, 10'000'000, "a non-negative integer"});
    if (auto x = o.get("statements"))
        w.statements = read_int(*x, IntRange{1, 1000, "a positive integer"});
    if (auto x = o.get("keys")) w.keys = read_int(*x, IntRange{1, 1'000'000, "a positive integer"});
    if (auto x = o.get("rate_per_second"))
        w.rate_per_second = read_int(*x, IntRange{1, 1'000'000, "a positive integer"});
    if (auto x = o.get("delete_ratio")) w.delete_ratio = read_ratio(*x);
    if (auto x = o.get("rollback_ratio")) w.rollback_ratio = read_ratio(*x);
    // Positive values: a keyed sum over the changelog then returns to 0 exactly when a key has no
    // rows left.
    if (auto x = o.get("value_min"))
        w.value_min = read_int(*x, IntRange{1, 1'000'000'000, "a positive integer"});
    if (auto x = o.get("value_max"))
        w.value_max = read_int(*x, IntRange{1, 1'000'000'000, "a positive integer"});
    if (w.value_max < w.value_min) {
        const Value where = o.has("value_max") ? *o.get("value_max") : *o.get("value_min");
        where.fail("expected value_max >= value_min, found " + std::to_string(w.value_min) +
                   " and " + std::to_string(w.value_max));
    }
}

}  // namespace eosim::scenarios::loading
