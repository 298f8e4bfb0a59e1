#include "oracles/mirror_oracle.h"

#include <map>

#include "engine/connectors/upsert_sink.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
std::map<int64_t, int64_t> live_rows(const sim::external::Database& database, const std::string& table) {
    std::map<int64_t, int64_t> rows;
    if (!database.has_table(table)) return rows;
    for (const auto& [key, row] : database.table_contents(table)) {
        if (!row.deleted) rows[key] = row.value;
    }
    return rows;
}
}  // namespace

Verdict MirrorOracle::verdict() const {
    const auto source = live_rows(source_, source_table_);
    const auto target = live_rows(target_, target_table_);
    int64_t missing = 0;
    int64_t extra = 0;
    int64_t different = 0;
    std::string first;
    auto note = [&first](const std::string& what) {
        if (first.empty()) first = what;
    };
    for (const auto& [key, value] : source) {
        auto it = target.find(key);
        if (it == target.end()) {
            ++missing;
            note("key " + std::to_string(key) + " is missing from the target (source value " + std::to_string(value) + ")");
        } else if (it->second != value) {
            ++different;
            note("key " + std::to_string(key) + " has value " + std::to_string(it->second) + " in the target, " +
                 std::to_string(value) + " in the source");
        }
    }
    for (const auto& [key, value] : target) {
        if (source.count(key) == 0) {
            ++extra;
            note("key " + std::to_string(key) + " is in the target (value " + std::to_string(value) +
                 ") but not in the source");
        }
    }
    if (missing + extra + different == 0) {
        return Verdict{true, "target table '" + target_table_ + "' mirrors source table '" + source_table_ + "': " +
                                 std::to_string(source.size()) + " rows"};
    }
    return Verdict{false, first + " (" + std::to_string(missing) + " missing, " + std::to_string(extra) + " extra, " +
                              std::to_string(different) + " different of " + std::to_string(source.size()) + " rows)"};
}

OracleRegistration mirror_registration() {
    return {"mirror", "the upsert table mirrors the CDC source table at the end",
            [](const OracleJobFacts& facts) -> std::string {
                if (engine::has_operator(facts.job, engine::OperatorKind::cdc_source) && engine::has_sink_kind(facts.job, "upsert")) return "";
                return "a CDC job writing an upsert sink (cdc_source ... upsert_sink)";
            },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                const engine::VertexSpec* source = nullptr;
                for (const engine::VertexSpec& v : run.job.vertices) {
                    if (v.kind == engine::OperatorKind::cdc_source) source = &v;
                }
                const engine::UpsertSinkOptions& upsert = *engine::upsert_sink_options(run.sink());
                return std::make_unique<MirrorOracle>(*run.systems.database(engine::kCdcSourceDatabase), source->table,
                                                      *run.systems.database(engine::kUpsertTargetDatabase), upsert.table);
            }};
}

}  // namespace eosim::oracles
