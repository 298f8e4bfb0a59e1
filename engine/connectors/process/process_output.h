#pragma once
// What a process sink's output is and how eosim reads it (docs/sink-protocol.md, "hello"): the sink
// declares in its hello which outside system holds its output and how a reader reads it, since
// eosim cannot call into the process after the run to ask:
//   {"system": "key_values", "prefix": "P", "shape": "keyed_table" | "key_counts"}
//       every live key "P<integer>" is a row (key, value);
//   {"system": "documents", "index": "I", "shape": "appended" | "keyed_table"}
//       every document of index I is the record (fields "key", "value");
//   {"system": "kafka", "topic": "T"}  (appended) every committed record of topic T
//   (read_committed);
//   {"system": "objects", "prefix": "P"}  (appended) every object under P holds lines "<key>
//   <value>";
//   {"system": "database", "table": "T"}  (keyed_table) every row of table T of the database
//   "database".
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/outside_systems.h"
#include "engine/connectors/sink_registry.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine::process {

struct OutputDeclaration {
    std::string system;
    std::string name;  // the prefix, index, topic or table
    SinkOutputShape shape = SinkOutputShape::appended;
    std::string describe() const;  // e.g. "key_values prefix \"out:\"" (also the sink's claim)
};

// Reads the hello's "output"; throws std::invalid_argument saying what was expected.
OutputDeclaration read_output_declaration(const nlohmann::json& output);

// What a reader of the declared system sees now.
std::vector<Record> read_declared_output(const OutputDeclaration& output,
                                         const OutsideSystems& systems);

}  // namespace eosim::engine::process
