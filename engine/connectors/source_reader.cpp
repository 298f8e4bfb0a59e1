#include "engine/connectors/source_reader.h"

#include <stdexcept>

#include "engine/connectors/cdc_source.h"
#include "engine/connectors/kafka_source.h"

namespace eosim::engine {

std::unique_ptr<SourceReader> make_source_reader(const VertexSpec& vertex, SinkContext& context,
                                                 const SourceServices& services, int32_t subtask) {
    switch (vertex.kind) {
        case OperatorKind::kafka_source:
            return std::make_unique<KafkaSourceReader>(
                *services.kafka, context.node(), vertex.topic, subtask, vertex.parallelism,
                *services.input_end_offsets, vertex.watermarks, &context.world().scheduler());
        case OperatorKind::cdc_source:
            if (services.database == nullptr)
                throw std::logic_error("a cdc_source needs a database");
            return std::make_unique<CdcSourceReader>(vertex, context, *services.database, subtask);
        default:
            throw std::logic_error(std::string("no source reader for vertex kind ") +
                                   to_string(vertex.kind));
    }
}

}  // namespace eosim::engine
