#include "oracles/no_key_backwards_oracle.h"

#include <cstdio>

#include "engine/connectors/sink_registry.h"
#include "engine/connectors/upsert_sink.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
constexpr sim::EventKind kTablePoll{"oracle.table_poll"};
}

NoKeyBackwardsOracle::NoKeyBackwardsOracle(sim::Scheduler& scheduler,
                                           std::function<std::vector<Row>()> read,
                                           std::function<std::string()> absorbed,
                                           sim::Duration poll_interval)
    : scheduler_(scheduler),
      read_(std::move(read)),
      absorbed_(std::move(absorbed)),
      poll_interval_(poll_interval) {}

NoKeyBackwardsOracle::NoKeyBackwardsOracle(sim::Scheduler& scheduler,
                                           const sim::external::Database& database,
                                           const std::string& table, sim::Duration poll_interval)
    : NoKeyBackwardsOracle(
          scheduler,
          [&database, table] {
              std::vector<Row> rows;
              if (!database.has_table(table)) return rows;
              for (const auto& [key, row] : database.table_contents(table))
                  rows.push_back(Row{key, row.version, row.value});
              return rows;
          },
          [&database] {
              return "; duplicates absorbed (writes that changed nothing): " +
                     std::to_string(database.stats().unchanged_writes);
          },
          poll_interval) {}

void NoKeyBackwardsOracle::start() {
    scheduler_.schedule(poll_interval_, sim::kNoNode, kTablePoll, 0, [this] { poll(); });
}

void NoKeyBackwardsOracle::poll() {
    ++polls_;
    for (const Row& row : read_()) {
        auto [it, fresh] = highest_version_.try_emplace(row.key, row.version);
        if (fresh || row.version >= it->second) {
            it->second = row.version;
            continue;
        }
        ++regressions_;
        if (!first_violation_) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "key %lld went back from version %lld to %lld (value %lld) at %.3fs",
                          static_cast<long long>(row.key), static_cast<long long>(it->second),
                          static_cast<long long>(row.version), static_cast<long long>(row.value),
                          scheduler_.now().seconds());
            first_violation_ = text;
        }
    }
    scheduler_.schedule(poll_interval_, sim::kNoNode, kTablePoll, static_cast<uint64_t>(polls_),
                        [this] { poll(); });
}

Verdict NoKeyBackwardsOracle::verdict() const {
    const std::string absorbed = absorbed_ ? absorbed_() : std::string();
    if (first_violation_) {
        return Verdict{false, *first_violation_ + " (" + std::to_string(regressions_) +
                                  " regressions seen in " + std::to_string(polls_) + " polls)" +
                                  absorbed};
    }
    return Verdict{true, std::to_string(highest_version_.size()) + " keys polled " +
                             std::to_string(polls_) + " times, none went backwards" + absorbed};
}

namespace {

// The keyed-table sink fed by a running count (the second table above), or nullptr.
const engine::VertexSpec* counted_table_sink(const engine::JobSpec& job) {
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind != engine::OperatorKind::sink || !v.sink ||
            v.sink->output_shape() != engine::SinkOutputShape::keyed_table)
            continue;
        if (v.inputs.size() != 1) continue;
        for (const engine::VertexSpec& from : job.vertices) {
            if (from.id == v.inputs.front().from && from.kind == engine::OperatorKind::keyed_count)
                return &v;
        }
    }
    return nullptr;
}

}  // namespace

OracleRegistration no_key_backwards_registration() {
    return {
        "no_key_backwards",
        "a keyed table's rows never go back to an older version (an upsert table, a counted keyed table)",
        [](const OracleJobFacts& facts) -> std::string {
            return engine::has_sink_kind(facts.job, "upsert") ||
                           counted_table_sink(facts.job) != nullptr
                       ? ""
                       : "a job with an upsert_sink, or a keyed-table sink fed by a keyed_count";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            using Row = NoKeyBackwardsOracle::Row;
            std::unique_ptr<NoKeyBackwardsOracle> oracle;
            if (engine::has_sink_kind(run.job, "upsert")) {
                const engine::UpsertSinkOptions& upsert = *engine::upsert_sink_options(run.sink());
                oracle = std::make_unique<NoKeyBackwardsOracle>(
                    run.world.scheduler(), *run.systems.database(engine::kUpsertTargetDatabase),
                    upsert.table);
            } else {
                // What a reader sees now, at every poll (the judged sinks' readers read once, at
                // the end).
                const engine::VertexSpec* sink = counted_table_sink(run.job);
                auto read_now = run.committed_content;
                oracle = std::make_unique<NoKeyBackwardsOracle>(
                    run.world.scheduler(),
                    [sink, read_now] {
                        std::vector<Row> rows;
                        for (const engine::Record& r : read_now(*sink).records())
                            rows.push_back(Row{r.key, r.value, r.value});
                        return rows;
                    },
                    nullptr);
            }
            NoKeyBackwardsOracle* table_reader = oracle.get();
            run.hooks.on_start([table_reader] { table_reader->start(); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
