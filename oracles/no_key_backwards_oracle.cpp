#include "oracles/no_key_backwards_oracle.h"

#include <cstdio>

#include "engine/connectors/sink_registry.h"
#include "engine/connectors/upsert_sink.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
constexpr sim::EventKind kTablePoll{"oracle.table_poll"};
}

NoKeyBackwardsOracle::NoKeyBackwardsOracle(sim::Scheduler& scheduler, const sim::external::Database& database,
                                           std::string table, sim::Duration poll_interval)
    : scheduler_(scheduler), database_(database), table_(std::move(table)), poll_interval_(poll_interval) {}

void NoKeyBackwardsOracle::start() {
    scheduler_.schedule(poll_interval_, sim::kNoNode, kTablePoll, 0, [this] { poll(); });
}

void NoKeyBackwardsOracle::poll() {
    ++polls_;
    if (database_.has_table(table_)) {
        for (const auto& [key, row] : database_.table_contents(table_)) {
            auto [it, fresh] = highest_version_.try_emplace(key, row.version);
            if (fresh || row.version >= it->second) {
                it->second = row.version;
                continue;
            }
            ++regressions_;
            if (!first_violation_) {
                char text[200];
                std::snprintf(text, sizeof text, "key %lld went back from version %lld to %lld (value %lld) at %.3fs",
                              static_cast<long long>(key), static_cast<long long>(it->second),
                              static_cast<long long>(row.version), static_cast<long long>(row.value),
                              scheduler_.now().seconds());
                first_violation_ = text;
            }
        }
    }
    scheduler_.schedule(poll_interval_, sim::kNoNode, kTablePoll, static_cast<uint64_t>(polls_), [this] { poll(); });
}

Verdict NoKeyBackwardsOracle::verdict() const {
    const std::string absorbed =
        "; duplicates absorbed (writes that changed nothing): " + std::to_string(database_.stats().unchanged_writes);
    if (first_violation_) {
        return Verdict{false, *first_violation_ + " (" + std::to_string(regressions_) + " regressions seen in " +
                                  std::to_string(polls_) + " polls)" + absorbed};
    }
    return Verdict{true, std::to_string(highest_version_.size()) + " keys polled " + std::to_string(polls_) +
                             " times, none went backwards" + absorbed};
}

OracleRegistration no_key_backwards_registration() {
    return {"no_key_backwards", "an upsert table's rows never go back to an older version",
            [](const OracleJobFacts& facts) -> std::string {
                return engine::has_sink_kind(facts.job, "upsert") ? "" : "a job with an upsert_sink";
            },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                const engine::UpsertSinkOptions& upsert = *engine::upsert_sink_options(run.sink());
                auto oracle = std::make_unique<NoKeyBackwardsOracle>(run.world.scheduler(), *run.systems.database(engine::kUpsertTargetDatabase),
                                                                     upsert.table);
                NoKeyBackwardsOracle* table_reader = oracle.get();
                run.hooks.on_start([table_reader] { table_reader->start(); });
                return oracle;
            }};
}

}  // namespace eosim::oracles
