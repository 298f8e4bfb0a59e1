#pragma once
// The built-in sink kinds, each registered by a function in its own file; builtin_sinks.cpp calls
// them in one list (a new built-in kind is one line there, never a case in a switch).
#include "engine/connectors/sink_registry.h"

namespace eosim::engine {

void register_kafka_sink(SinkRegistry& registry);      // kafka_sink.cpp
void register_append_sink(SinkRegistry& registry);     // append_sink.cpp
void register_upsert_sink(SinkRegistry& registry);     // upsert_sink.cpp
void register_document_sink(SinkRegistry& registry);   // document_sink.cpp
void register_key_value_sink(SinkRegistry& registry);  // key_value_sink.cpp
void register_process_sink(
    SinkRegistry& registry);  // process/process_sink.cpp (docs/sink-protocol.md)

}  // namespace eosim::engine
