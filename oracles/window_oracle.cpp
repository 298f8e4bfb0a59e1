#include "oracles/window_oracle.h"

#include <algorithm>
#include <map>

#include "engine/connectors/sink_registry.h"
#include "oracles/oracle_registry.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

using engine::Record;
using engine::WindowSpec;

namespace {

std::string describe(const WindowId& id, const WindowSpec& spec) {
    const engine::TimeWindow w = engine::window_ending_at(spec, id.end);
    return "key " + std::to_string(id.key) + " window [" + std::to_string(w.start) + ", " +
           std::to_string(w.end) + ")";
}

std::string describe(const Record& r) {
    return "(key " + std::to_string(r.key) + ", value " + std::to_string(r.value) + ", timestamp " +
           std::to_string(r.timestamp) + ")";
}

std::string values_text(const std::vector<int64_t>& values) {
    std::string out;
    for (int64_t v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
    return "[" + out + "]";
}

auto timed_order(const Record& a, const Record& b) {
    return std::tie(a.key, a.timestamp, a.value) < std::tie(b.key, b.timestamp, b.value);
}

// What one (key, window) shows: its firings' values (sorted) and the aggregate of its late records.
struct WindowSeen {
    std::vector<int64_t> firings;
    int64_t late_aggregate = 0;
    int64_t late_records = 0;
};

// Checks one window's firings against the model; "" when they pass, else what is wrong.
class WindowJudge {
public:
    WindowJudge(const WindowSpec& spec, bool cut, bool idleness)
        : spec_(spec), cut_(cut), idleness_(idleness) {}

    std::string judge(const WindowTotals& model, const WindowSeen& seen) {
        const std::vector<int64_t>& f = seen.firings;
        const bool ordered =
            spec_.aggregate == WindowSpec::Aggregate::count || model.all_values_positive;
        if (!ordered) {
            ++unordered_;
            return "";
        }
        for (size_t i = 1; i < f.size(); ++i) {
            if (f[i] == f[i - 1])
                return "fired twice with " + std::to_string(f[i]) + ": firings " + values_text(f);
            if (spec_.aggregate == WindowSpec::Aggregate::count && f[i] != f[i - 1] + 1) {
                return "firings " + values_text(f) +
                       " skip a count (each late record accepted fires once)";
            }
        }
        const int64_t last = f.empty() ? 0 : f.back();
        refirings_ += f.empty() ? 0 : static_cast<int64_t>(f.size()) - 1;
        // With idleness an in-bound record may be late too: sliding windows are then all within
        // bounds.
        const bool exact = spec_.kind == WindowSpec::Kind::tumbling ||
                           (model.out_of_bound_records == 0 && !idleness_);
        if (exact) {
            ++exact_;
            if (spec_.kind == WindowSpec::Kind::sliding &&
                (f.size() > 1 || seen.late_records > 0)) {
                return "a window of in-bound records only fired " + values_text(f) + " with " +
                       std::to_string(seen.late_records) +
                       " late records (expected one firing with " +
                       std::to_string(model.aggregate) + ")";
            }
            if (last + seen.late_aggregate == model.aggregate) return "";
            if (cut_ && last + seen.late_aggregate < model.aggregate) {
                ++not_judged_;
                return "";
            }
            return "last firing " + std::to_string(last) + " + late " +
                   std::to_string(seen.late_aggregate) + " != the model's " +
                   std::to_string(model.aggregate) + " (firings " + values_text(f) + ")";
        }
        ++within_bounds_;
        if (last + seen.late_aggregate > model.aggregate) {
            return "last firing " + std::to_string(last) + " + late " +
                   std::to_string(seen.late_aggregate) + " above the model's total " +
                   std::to_string(model.aggregate);
        }
        if (last < model.in_bound_aggregate && !cut_ && !idleness_) {
            return "last firing " + std::to_string(last) +
                   " below the aggregate of its in-bound records " +
                   std::to_string(model.in_bound_aggregate);
        }
        return "";
    }

    int64_t exact_ = 0;
    int64_t within_bounds_ = 0;
    int64_t unordered_ = 0;
    int64_t refirings_ = 0;
    int64_t not_judged_ = 0;

private:
    const WindowSpec& spec_;
    bool cut_;
    bool idleness_;
};

}  // namespace

std::optional<WindowOutputSinks> find_window_output_sinks(const engine::JobSpec& job) {
    WindowOutputSinks found;
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind != engine::OperatorKind::window) continue;
        if (found.window != nullptr) return std::nullopt;
        found.window = &v;
    }
    if (found.window == nullptr) return std::nullopt;
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind != engine::OperatorKind::sink || v.inputs.size() != 1 ||
            v.inputs.front().from != found.window->id)
            continue;
        (v.inputs.front().output == "late" ? found.late : found.results) = &v;
    }
    if (found.results == nullptr) return std::nullopt;
    return found;
}

Verdict WindowOutputOracle::verdict() const {
    const std::vector<Record> results = results_();
    const std::vector<Record> late = late_ ? late_() : std::vector<Record>{};
    return model_.spec().is_time_window() ? time_window_verdict(results, late)
                                          : count_window_verdict(results, late);
}

Verdict WindowOutputOracle::time_window_verdict(const std::vector<Record>& results,
                                                const std::vector<Record>& late) const {
    const WindowSpec& spec = model_.spec();
    std::map<WindowId, WindowSeen> seen;
    for (const Record& r : results)
        seen[WindowId{r.key, r.timestamp + 1}].firings.push_back(r.value);
    for (auto& [id, s] : seen) std::sort(s.firings.begin(), s.firings.end());
    for (const Record& r : late) {
        for (const engine::TimeWindow& w : engine::assign_windows(spec, r.timestamp)) {
            WindowSeen& s = seen[WindowId{r.key, w.end}];
            s.late_aggregate = engine::fold_window(
                spec.aggregate,
                s.late_records == 0 ? std::nullopt : std::optional(s.late_aggregate), r);
            ++s.late_records;
        }
    }
    std::string first;
    int64_t wrong = 0;
    auto note = [&](const std::string& what) {
        ++wrong;
        if (first.empty()) first = what;
    };
    // The late output holds out-of-bound input records only (without idleness), each at most as
    // often as the input has it.
    if (!idleness_) {
        std::vector<Record> allowed = model_.out_of_bound_records();
        std::sort(allowed.begin(), allowed.end(), timed_order);
        std::vector<Record> shown = late;
        std::sort(shown.begin(), shown.end(), timed_order);
        std::vector<Record> excess;
        std::set_difference(shown.begin(), shown.end(), allowed.begin(), allowed.end(),
                            std::back_inserter(excess), timed_order);
        for (const Record& r : excess) {
            note("late output holds " + describe(r) +
                 ", which is not an out-of-bound input record (or not that often)");
        }
    }
    const bool cut = !run_cut_.empty();
    WindowJudge judge(spec, cut, idleness_);
    const WindowSeen nothing;
    for (const auto& [id, totals] : model_.windows()) {
        auto it = seen.find(id);
        const std::string why = judge.judge(totals, it == seen.end() ? nothing : it->second);
        if (!why.empty()) note(describe(id, spec) + ": " + why);
    }
    int64_t firings = 0;
    for (const auto& [id, s] : seen) {
        firings += static_cast<int64_t>(s.firings.size());
        if (!model_.windows().contains(id)) {
            note(describe(id, spec) + ": " + std::to_string(s.firings.size()) + " firings and " +
                 std::to_string(s.late_records) +
                 " late records, but the model has no record in this window");
        }
    }
    Verdict v;
    v.message = "window '" + vertex_ + "' (" + engine::to_string(spec.kind) + ", " +
                engine::to_string(spec.aggregate) +
                "): " + std::to_string(model_.windows().size()) + " windows, " +
                std::to_string(firings) + " firings (" + std::to_string(judge.refirings_) +
                " re-firings of late records), " + std::to_string(late.size()) + " late records; " +
                std::to_string(judge.exact_) + " windows checked exactly, " +
                std::to_string(judge.within_bounds_) + " within bounds";
    if (judge.unordered_ > 0)
        v.message += ", " + std::to_string(judge.unordered_) +
                     " not checked (sums with non-positive values)";
    if (idleness_)
        v.message +=
            "; idleness enabled: the late output is not checked against the out-of-bound records";
    if (judge.not_judged_ > 0) {
        v.message += "; " + std::to_string(judge.not_judged_) +
                     " windows not (yet) complete: not judged, the run was cut (" + run_cut_ + ")";
    }
    if (wrong == 0) return v;
    v.passed = false;
    v.message += "; " + std::to_string(wrong) + " violations; first: " + first;
    return v;
}

Verdict WindowOutputOracle::count_window_verdict(const std::vector<Record>& results,
                                                 const std::vector<Record>& late) const {
    std::vector<Record> expected;
    model_.emit_results([&expected](const Record& r) { expected.push_back(r); });
    std::vector<Record> actual = results;
    std::sort(expected.begin(), expected.end(), timed_order);
    std::sort(actual.begin(), actual.end(), timed_order);
    std::vector<Record> missing, extra;
    std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(),
                        std::back_inserter(missing), timed_order);
    std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(),
                        std::back_inserter(extra), timed_order);
    Verdict v;
    v.message = "count window '" + vertex_ + "' (" + std::to_string(model_.spec().size_records) +
                " records, " + engine::to_string(model_.spec().aggregate) +
                "): " + std::to_string(actual.size()) + " results, " +
                std::to_string(expected.size()) + " expected";
    const bool judged_missing = run_cut_.empty() && !missing.empty();
    if (!judged_missing && extra.empty() && late.empty()) {
        if (!missing.empty())
            v.message += "; " + std::to_string(missing.size()) +
                         " not (yet) emitted: not judged, the run was cut (" + run_cut_ + ")";
        return v;
    }
    v.passed = false;
    v.message += "; " + std::to_string(missing.size()) + " missing, " +
                 std::to_string(extra.size()) + " extra or duplicated, " +
                 std::to_string(late.size()) + " in the late output (a count window has none)";
    if (!missing.empty()) v.message += "; first missing " + describe(missing.front());
    if (!extra.empty()) v.message += "; first extra " + describe(extra.front());
    return v;
}

namespace {

// What a committed reader of `sink` sees, read when asked: its read_output (a Kafka sink's is its
// topic's committed records, event timestamps included).
WindowOutputOracle::TimedReader timed_reader(const engine::VertexSpec* sink,
                                             const engine::OutsideSystems& systems) {
    if (sink == nullptr) return {};
    return [sink, &systems] { return sink->sink->read_output(systems); };
}

}  // namespace

OracleRegistration window_output_registration() {
    return {
        "window_output",
        "every window fires once with the reference model's result; late records go where the job says",
        [](const OracleJobFacts& facts) -> std::string {
            if (find_window_output_sinks(facts.job)) return "";
            return "a job with one window vertex whose results go straight into a sink (and its late output, "
                   "if read, straight into another)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            const WindowOutputSinks sinks = find_window_output_sinks(run.job).value();
            // Whether a source marks idle splits (an idle_timeout in its watermark strategy).
            const bool idleness = std::any_of(run.job.vertices.begin(), run.job.vertices.end(),
                                              [](const engine::VertexSpec& v) {
                                                  return v.watermarks && v.watermarks->idle_timeout;
                                              });
            auto oracle = std::make_unique<WindowOutputOracle>(
                run.model.window_model(sinks.window->id), sinks.window->id,
                timed_reader(sinks.results, run.systems), timed_reader(sinks.late, run.systems),
                idleness);
            WindowOutputOracle* window = oracle.get();
            run.hooks.on_cut([window](const std::string& why) { window->set_run_cut(why); });
            run.hooks.on_job_failed([window](const CommittedPrefix& prefix) {
                window->set_run_cut("the job failed as expected; " + prefix.describe() +
                                    " holds only what it committed");
            });
            return oracle;
        }};
}

}  // namespace eosim::oracles
