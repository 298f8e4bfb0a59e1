#include "engine/connectors/builtin_sinks.h"

namespace eosim::engine {

void register_builtin_sinks(SinkRegistry& registry) {
    register_kafka_sink(registry);
    register_append_sink(registry);
    register_upsert_sink(registry);
    register_document_sink(registry);
    register_key_value_sink(registry);
    register_process_sink(registry);
}

}  // namespace eosim::engine
