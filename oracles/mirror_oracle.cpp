#include "oracles/mirror_oracle.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/connectors/upsert_sink.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
std::map<int64_t, int64_t> live_rows(const sim::external::Database& database,
                                     const std::string& table) {
    std::map<int64_t, int64_t> rows;
    if (!database.has_table(table)) return rows;
    for (const auto& [key, row] : database.table_contents(table)) {
        if (!row.deleted) rows[key] = row.value;
    }
    return rows;
}
}  // namespace

sim::external::BinlogPosition MirrorOracle::lower_position() const {
    std::optional<int64_t> lowest;
    for (const auto& [split, position] : failed_->lower) {
        if (split.first != "cdc:" + source_table_) continue;
        if (position < 0)
            return {};  // a snapshot chunk unfinished: nothing certain beyond the start
        lowest = std::min(lowest.value_or(position), position);
    }
    if (!lowest) return {};
    return sim::external::BinlogPosition{static_cast<int32_t>(*lowest >> 40),
                                         *lowest & ((int64_t{1} << 40) - 1)};
}

Verdict MirrorOracle::failed_job_verdict() const {
    const sim::external::BinlogPosition cut = lower_position();
    std::map<int64_t, int64_t> at_cut;           // the source's live rows at the cut
    std::map<int64_t, std::set<int64_t>> later;  // values a later change gave each key
    std::set<int64_t> removable;                 // keys a later change removed
    for (const sim::external::BinlogEvent& e : source_.history()) {
        if (e.table != source_table_) continue;
        if (e.next <= cut) {
            if (e.after && !e.after->deleted) {
                at_cut[e.key()] = e.after->value;
            } else {
                at_cut.erase(e.key());
            }
        } else if (e.after && !e.after->deleted) {
            later[e.key()].insert(e.after->value);
        } else {
            removable.insert(e.key());
        }
    }
    const auto target = live_rows(target_, target_table_);
    int64_t missing = 0, wrong = 0;
    std::string first;
    for (const auto& [key, value] : target) {
        const auto was = at_cut.find(key);
        const auto changed = later.find(key);
        if ((was != at_cut.end() && was->second == value) ||
            (changed != later.end() && changed->second.contains(value)))
            continue;
        ++wrong;
        if (first.empty())
            first = "key " + std::to_string(key) + " has value " + std::to_string(value) +
                    " in the target, a value the source row never had from the cut on";
    }
    for (const auto& [key, value] : at_cut) {
        if (target.contains(key) || removable.contains(key)) continue;
        ++missing;
        if (first.empty())
            first = "key " + std::to_string(key) + " is missing from the target (source value " +
                    std::to_string(value) + " at the cut)";
    }
    const std::string text =
        "target table '" + target_table_ + "' against source table '" + source_table_ + "' as of " +
        cut.describe() + " (" + failed_->describe() +
        "; later changes the job may have written allowed): " + std::to_string(at_cut.size()) +
        " rows at the cut, " + std::to_string(target.size()) + " in the target";
    if (missing + wrong == 0) return Verdict{true, text};
    return Verdict{false, first + " (" + std::to_string(missing) + " missing, " +
                              std::to_string(wrong) + " different or extra; " + text + ")"};
}

Verdict MirrorOracle::verdict() const {
    if (failed_) return failed_job_verdict();
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
            note("key " + std::to_string(key) + " is missing from the target (source value " +
                 std::to_string(value) + ")");
        } else if (it->second != value) {
            ++different;
            note("key " + std::to_string(key) + " has value " + std::to_string(it->second) +
                 " in the target, " + std::to_string(value) + " in the source");
        }
    }
    for (const auto& [key, value] : target) {
        if (source.count(key) == 0) {
            ++extra;
            note("key " + std::to_string(key) + " is in the target (value " +
                 std::to_string(value) + ") but not in the source");
        }
    }
    if (missing + extra + different == 0) {
        return Verdict{true, "target table '" + target_table_ + "' mirrors source table '" +
                                 source_table_ + "': " + std::to_string(source.size()) + " rows"};
    }
    return Verdict{false, first + " (" + std::to_string(missing) + " missing, " +
                              std::to_string(extra) + " extra, " + std::to_string(different) +
                              " different of " + std::to_string(source.size()) + " rows)"};
}

OracleRegistration mirror_registration() {
    return {"mirror", "the upsert table mirrors the CDC source table at the end",
            [](const OracleJobFacts& facts) -> std::string {
                if (engine::has_operator(facts.job, engine::OperatorKind::cdc_source) &&
                    engine::has_sink_kind(facts.job, "upsert"))
                    return "";
                return "a CDC job writing an upsert sink (cdc_source ... upsert_sink)";
            },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                const engine::VertexSpec* source = nullptr;
                for (const engine::VertexSpec& v : run.job.vertices) {
                    if (v.kind == engine::OperatorKind::cdc_source) source = &v;
                }
                const engine::UpsertSinkOptions& upsert = *engine::upsert_sink_options(run.sink());
                auto oracle = std::make_unique<MirrorOracle>(
                    *run.systems.database(engine::kCdcSourceDatabase), source->table,
                    *run.systems.database(engine::kUpsertTargetDatabase), upsert.table);
                MirrorOracle* mirror = oracle.get();
                run.hooks.on_job_failed(
                    [mirror](const CommittedPrefix& prefix) { mirror->set_job_failed(prefix); });
                return oracle;
            }};
}

}  // namespace eosim::oracles
