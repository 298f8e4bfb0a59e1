#include "engine/connectors/process/process_output.h"

#include <sstream>

#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/kafka.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"

namespace eosim::engine::process {

namespace {

struct Form {
    const char* system;
    const char* name_key;
    std::vector<SinkOutputShape> shapes;  // the first is the default
};

const std::vector<Form>& forms() {
    static const std::vector<Form> all = {
        {"key_values", "prefix", {SinkOutputShape::keyed_table, SinkOutputShape::key_counts}},
        {"documents", "index", {SinkOutputShape::appended, SinkOutputShape::keyed_table}},
        {"kafka", "topic", {SinkOutputShape::appended}},
        {"objects", "prefix", {SinkOutputShape::appended}},
        {"database", "table", {SinkOutputShape::keyed_table}},
    };
    return all;
}

std::string shape_list(const Form& form) {
    std::string out;
    for (SinkOutputShape shape : form.shapes)
        out += std::string(out.empty() ? "" : " or ") + to_string(shape);
    return out;
}

SinkOutputShape read_shape(const nlohmann::json& output, const Form& form) {
    if (!output.contains("shape")) return form.shapes.front();
    for (SinkOutputShape shape : form.shapes) {
        if (output["shape"] == to_string(shape)) return shape;
    }
    throw std::invalid_argument(std::string("expected \"shape\": ") + shape_list(form) +
                                " for output in " + form.system);
}

std::vector<Record> object_lines(const sim::external::ObjectStore& store,
                                 const std::string& prefix) {
    std::vector<Record> out;
    for (auto it = store.objects().lower_bound(prefix);
         it != store.objects().end() && it->first.rfind(prefix, 0) == 0; ++it) {
        std::istringstream lines(it->second);
        Record r;
        while (lines >> r.key >> r.value) out.push_back(r);
    }
    return out;
}

}  // namespace

std::string OutputDeclaration::describe() const {
    for (const Form& form : forms()) {
        if (form.system == system) return system + " " + form.name_key + " \"" + name + "\"";
    }
    return system;
}

OutputDeclaration read_output_declaration(const nlohmann::json& output) {
    std::string systems;
    for (const Form& form : forms())
        systems += std::string(systems.empty() ? "" : ", ") + form.system;
    if (!output.is_object() || !output.contains("system")) {
        throw std::invalid_argument("expected \"output\": {\"system\": one of " + systems +
                                    ", ...} in the hello");
    }
    for (const Form& form : forms()) {
        if (output["system"] != form.system) continue;
        const auto name = output.find(form.name_key);
        if (name == output.end() || !name->is_string() || name->get<std::string>().empty()) {
            throw std::invalid_argument(std::string("expected \"") + form.name_key +
                                        "\": a non-empty string in the output in " + form.system);
        }
        return {form.system, name->get<std::string>(), read_shape(output, form)};
    }
    throw std::invalid_argument("expected \"output\" in one of " + systems + ", found " +
                                output["system"].dump());
}

std::vector<Record> read_declared_output(const OutputDeclaration& output,
                                         const OutsideSystems& systems) {
    std::vector<Record> out;
    if (output.system == "key_values") {
        for (const auto& [key, value] : systems.key_values->entries(output.name)) {
            const std::string rest = key.substr(output.name.size());
            if (!rest.empty() && rest.find_first_not_of("-0123456789") == std::string::npos)
                out.push_back(Record{std::stoll(rest), value});
        }
    } else if (output.system == "documents") {
        for (const auto& doc : systems.documents->documents(output.name)) {
            const auto field = [&doc](const char* n) {
                auto it = doc.fields.find(n);
                return it == doc.fields.end() ? int64_t{0} : it->second;
            };
            out.push_back(Record{field("key"), field("value")});
        }
    } else if (output.system == "kafka") {
        systems.kafka->for_each_committed(output.name, [&out](const sim::external::KafkaRecord& r) {
            out.push_back(Record{r.key, r.value, 0, RowKind::insert, r.timestamp});
        });
    } else if (output.system == "objects") {
        out = object_lines(*systems.objects, output.name);
    } else if (output.system == "database") {
        const sim::external::Database& database = *systems.database(kSinkDatabase);
        if (!database.has_table(output.name)) return out;
        for (const auto& [key, row] : database.table_contents(output.name)) {
            if (!row.deleted) out.push_back(Record{key, row.value});
        }
    }
    return out;
}

}  // namespace eosim::engine::process
