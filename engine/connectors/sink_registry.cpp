#include "engine/connectors/sink_registry.h"

#include <stdexcept>

namespace eosim::engine {

const char* to_string(SinkOutputShape shape) {
    switch (shape) {
        case SinkOutputShape::appended: return "appended";
        case SinkOutputShape::keyed_table: return "keyed_table";
        case SinkOutputShape::key_counts: return "key_counts";
    }
    return "?";
}

SinkRegistry& SinkRegistry::global() {
    static SinkRegistry* registry = [] {
        auto* r = new SinkRegistry();  // never destroyed: static registrars may run in any order
        register_builtin_sinks(*r);
        return r;
    }();
    return *registry;
}

void SinkRegistry::add(SinkKind kind) {
    if (kind.name.empty() || !kind.configure)
        throw std::logic_error("a sink kind needs a name and a configure function");
    const std::string name = kind.name;
    if (!kinds_.emplace(name, std::move(kind)).second) {
        throw std::logic_error("sink kind \"" + name + "\" is registered twice");
    }
}

const SinkKind* SinkRegistry::find(const std::string& name) const {
    auto it = kinds_.find(name);
    return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<std::string> SinkRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& [name, kind] : kinds_) out.push_back(name);
    return out;
}

std::string the_source_topic(const SinkOptions& options, const std::string& key,
                             const SinkWorld& world) {
    const std::vector<std::string> topics = world.source_topics();
    if (topics.size() == 1) return topics.front();
    std::string found = topics.empty() ? "none" : std::to_string(topics.size()) + " (";
    for (size_t i = 0; i < topics.size(); ++i)
        found += (i == 0 ? "" : ", ") + topics[i] + (i + 1 == topics.size() ? ")" : "");
    options.fail(
        key,
        "expected a job whose sources read one Kafka topic (records are named \"<topic>-<partition>-"
        "<offset>\" after it), found " +
            found);
}

std::vector<SinkTwin> twin_setting(const nlohmann::json& options, const std::string& key,
                                   const nlohmann::json& fallback, const nlohmann::json& bad,
                                   std::string name, std::string summary) {
    const nlohmann::json current =
        options.is_object() && options.contains(key) ? options[key] : fallback;
    if (current == bad) return {};
    nlohmann::json broken = options.is_object() ? options : nlohmann::json::object();
    broken[key] = bad;
    return {SinkTwin{std::move(name), std::move(summary), std::move(broken)}};
}

}  // namespace eosim::engine
