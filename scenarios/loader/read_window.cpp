// The loader's "window" of a window vertex (scenarios/loader/loader.h), and the shape a window
// vertex needs around it.
#include "scenarios/loader/loader.h"

namespace eosim::scenarios::loading {

namespace {

constexpr std::array kAllWindowKinds = {engine::WindowSpec::Kind::tumbling,
                                        engine::WindowSpec::Kind::sliding,
                                        engine::WindowSpec::Kind::count};
constexpr std::array kAllAggregates = {engine::WindowSpec::Aggregate::count,
                                       engine::WindowSpec::Aggregate::sum};

// Event time is in milliseconds: a window's size, slide and lateness too.
sim::Duration read_millis(const Value& v, bool allow_zero) {
    const sim::Duration d = read_duration(v, allow_zero);
    if (d.ns % 1'000'000 != 0)
        v.fail("expected whole milliseconds (event time is in milliseconds), found " +
               format_duration(d));
    return d;
}

}  // namespace

engine::WindowSpec read_window(const Value& v) {
    if (!v.get().is_object() || !v.get().contains("kind")) {
        v.expected("an object with a \"kind\" (\"tumbling\", \"sliding\" or \"count\")");
    }
    const auto kind = read_enum(v.child("kind"), kAllWindowKinds, "a window kind");
    std::vector<std::string> keys{"kind", "aggregate"};
    if (kind == engine::WindowSpec::Kind::count) {
        keys.push_back("records");
    } else {
        keys.insert(keys.end(), {"size", "allowed_lateness"});
        if (kind == engine::WindowSpec::Kind::sliding) keys.push_back("slide");
    }
    const Object o(v, keys);
    engine::WindowSpec w;
    w.kind = kind;
    if (auto x = o.get("aggregate"))
        w.aggregate = read_enum(*x, kAllAggregates, "a window aggregate");
    if (kind == engine::WindowSpec::Kind::count) {
        w.size_records = read_int(
            o.require("records", "a positive integer (records per key and window)"), kPositive64);
        return w;
    }
    w.size = read_millis(o.require("size", std::string("a window size ") + kDurationForm), false);
    w.slide = w.size;
    if (kind == engine::WindowSpec::Kind::sliding) {
        const Value slide = o.require("slide", std::string("a slide ") + kDurationForm);
        w.slide = read_millis(slide, false);
        if (w.slide > w.size)
            slide.fail("expected a slide at most the size (" + format_duration(w.size) +
                       "), found " + format_duration(w.slide));
    }
    if (auto x = o.get("allowed_lateness")) w.allowed_lateness = read_millis(*x, true);
    return w;
}

// A window vertex reads a hash edge from vertices that keep each record's event time and its
// source's order: sources, maps, filters and unions (the model tells in-bound records by their
// source split's watermark; see oracles/window_model.h).
void Loader::check_window_upstream(const Object& o, const engine::VertexSpec& window) {
    std::vector<const engine::VertexSpec*> pending;
    for (const engine::InputEdge& edge : window.inputs) pending.push_back(s_.job.find(edge.from));
    while (!pending.empty()) {
        const engine::VertexSpec* v = pending.back();
        pending.pop_back();
        using K = engine::OperatorKind;
        if (v->kind == K::cdc_source || !(v->kind == K::kafka_source || v->kind == K::map ||
                                          v->kind == K::filter || v->kind == K::union_all)) {
            throw ScenarioError(
                file_, o.value().path() + "/inputs",
                "expected a window fed from kafka_source vertices through map, filter and union only; " +
                    in_quotes(v->id) + " (" + to_string(v->kind) + ") is upstream");
        }
        for (const engine::InputEdge& edge : v->inputs) pending.push_back(s_.job.find(edge.from));
    }
}

}  // namespace eosim::scenarios::loading
