#pragma once
// A small JSON Schema (draft-07) validator for the tests: the subset of keywords
// scenarios/schema.json uses, and nothing more, so that a keyword it does not know fails the test
// instead of being silently ignored. It also records which `properties` entries a valid document
// used, so a test can check that every key the schema allows is one some valid file uses (and the
// loader accepts).
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eosim::testing {

class JsonSchemaCheck {
public:
    explicit JsonSchemaCheck(nlohmann::json schema) : schema_(std::move(schema)) {}

    // Whether `instance` is valid; the first reasons why not go to `errors`.
    bool validate(const nlohmann::json& instance, std::vector<std::string>* errors = nullptr) {
        std::set<std::string> used;
        std::vector<std::string> local;
        const bool ok = check(schema_, "#", instance, "", used, local);
        if (ok) used_.insert(used.begin(), used.end());
        if (errors != nullptr) *errors = local;
        return ok;
    }

    // Whether `instance` is valid, and nothing else: no reasons, no used properties recorded, no
    // locations built on the way (the mutation tests validate thousands of documents).
    bool accepts(const nlohmann::json& instance) {
        std::set<std::string> used;
        std::vector<std::string> errors;
        detail_ = false;
        const bool ok = check(schema_, "#", instance, "", used, errors);
        detail_ = true;
        return ok;
    }

    // Every "<schema location>/properties/<name>" of the schema.
    std::set<std::string> all_properties() const {
        std::set<std::string> out;
        collect_properties(schema_, "#", out);
        return out;
    }
    // Those that a valid document given to validate() used.
    const std::set<std::string>& used_properties() const { return used_; }

private:
    static void collect_properties(const nlohmann::json& s, const std::string& at,
                                   std::set<std::string>& out) {
        if (s.is_object()) {
            for (const auto& [key, value] : s.items()) {
                if (key == "if" || key == "not")
                    continue;  // conditions, not places where a key is allowed
                if (key == "properties" && value.is_object()) {
                    for (const auto& [name, sub] : value.items())
                        out.insert(at + "/properties/" + name);
                }
                collect_properties(value, at + "/" + key, out);
            }
        } else if (s.is_array()) {
            for (size_t i = 0; i < s.size(); ++i)
                collect_properties(s[i], at + "/" + std::to_string(i), out);
        }
    }

    const nlohmann::json& resolve(const std::string& ref, std::string& at) const {
        const std::string prefix = "#/definitions/";
        if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
        at = ref;
        return schema_.at("definitions").at(ref.substr(prefix.size()));
    }

    static bool has_type(const nlohmann::json& v, const std::string& type) {
        if (type == "object") return v.is_object();
        if (type == "array") return v.is_array();
        if (type == "string") return v.is_string();
        if (type == "integer") return v.is_number_integer();
        if (type == "number") return v.is_number();
        if (type == "boolean") return v.is_boolean();
        if (type == "null") return v.is_null();
        throw std::runtime_error("unknown type " + type);
    }

    bool fail(std::vector<std::string>& errors, const std::string& where,
              const std::string& what) const {
        if (detail_ && errors.size() < 20)
            errors.push_back((where.empty() ? "/" : where) + ": " + what);
        return false;
    }

    // A schema or instance location one step below `base`; empty in accepts(), which needs none.
    std::string below(const std::string& base, const std::string& step) const {
        return detail_ ? base + "/" + step : std::string();
    }
    std::string below(const std::string& base, size_t index) const {
        return detail_ ? base + "/" + std::to_string(index) : std::string();
    }
    std::string below(const std::string& base, const char* keyword, size_t index) const {
        return detail_ ? base + "/" + keyword + "/" + std::to_string(index) : std::string();
    }

    bool check(const nlohmann::json& s, const std::string& at, const nlohmann::json& v,
               const std::string& where, std::set<std::string>& used,
               std::vector<std::string>& errors) {
        static const std::set<std::string> kKnown = {
            "$schema",       "$id",        "title",     "description",
            "definitions",   "$ref",       "type",      "enum",
            "const",         "pattern",    "minLength", "minimum",
            "maximum",       "minItems",   "maxItems",  "uniqueItems",
            "items",         "properties", "required",  "additionalProperties",
            "minProperties", "allOf",      "anyOf",     "oneOf",
            "not",           "if",         "then",      "else"};
        for (const auto& [key, value] : s.items()) {
            if (kKnown.count(key) == 0)
                throw std::runtime_error("the test validator does not know the keyword " + key);
        }
        bool ok = true;
        if (s.contains("$ref")) {
            std::string ref_at;
            const nlohmann::json& target = resolve(s["$ref"].get<std::string>(), ref_at);
            ok = check(target, ref_at, v, where, used, errors) && ok;
        }
        if (s.contains("type") && !has_type(v, s["type"].get<std::string>())) {
            return fail(errors, where, "expected type " + s["type"].get<std::string>());
        }
        if (s.contains("enum")) {
            bool found = false;
            for (const auto& option : s["enum"]) found = found || option == v;
            if (!found) ok = fail(errors, where, "not one of the enum values: " + v.dump());
        }
        if (s.contains("const") && s["const"] != v)
            ok = fail(errors, where, "expected " + s["const"].dump());
        if (v.is_string()) ok = check_string(s, v.get<std::string>(), where, errors) && ok;
        if (v.is_number()) ok = check_number(s, v, where, errors) && ok;
        if (v.is_array()) ok = check_array(s, at, v, where, used, errors) && ok;
        if (v.is_object()) ok = check_object(s, at, v, where, used, errors) && ok;
        return check_combinators(s, at, v, where, used, errors) && ok;
    }

    bool check_string(const nlohmann::json& s, const std::string& text, const std::string& where,
                      std::vector<std::string>& errors) {
        bool ok = true;
        if (s.contains("minLength") && text.size() < s["minLength"].get<size_t>())
            ok = fail(errors, where, "too short");
        if (s.contains("pattern")) {
            const std::string pattern = s["pattern"].get<std::string>();
            auto it = regexes_.find(pattern);
            if (it == regexes_.end())
                it = regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
            if (!std::regex_search(text, it->second))
                ok = fail(errors, where, "\"" + text + "\" does not match " + pattern);
        }
        return ok;
    }

    bool check_number(const nlohmann::json& s, const nlohmann::json& v, const std::string& where,
                      std::vector<std::string>& errors) {
        bool ok = true;
        const double x = v.get<double>();
        if (s.contains("minimum") && x < s["minimum"].get<double>())
            ok = fail(errors, where, "below the minimum");
        if (s.contains("maximum") && x > s["maximum"].get<double>())
            ok = fail(errors, where, "above the maximum");
        return ok;
    }

    bool check_array(const nlohmann::json& s, const std::string& at, const nlohmann::json& v,
                     const std::string& where, std::set<std::string>& used,
                     std::vector<std::string>& errors) {
        bool ok = true;
        if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
            ok = fail(errors, where, "too few items");
        if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
            ok = fail(errors, where, "too many items");
        if (s.contains("uniqueItems") && s["uniqueItems"].get<bool>()) {
            for (size_t i = 0; i < v.size(); ++i) {
                for (size_t j = i + 1; j < v.size(); ++j) {
                    if (v[i] == v[j]) ok = fail(errors, where, "repeated item " + v[i].dump());
                }
            }
        }
        if (s.contains("items")) {
            for (size_t i = 0; i < v.size(); ++i) {
                ok = check(s["items"], below(at, "items"), v[i], below(where, i), used, errors) &&
                     ok;
            }
        }
        return ok;
    }

    bool check_object(const nlohmann::json& s, const std::string& at, const nlohmann::json& v,
                      const std::string& where, std::set<std::string>& used,
                      std::vector<std::string>& errors) {
        bool ok = true;
        if (s.contains("required")) {
            for (const auto& key : s["required"]) {
                if (!v.contains(key.get<std::string>()))
                    ok = fail(errors, where, "missing " + key.get<std::string>());
            }
        }
        if (s.contains("minProperties") && v.size() < s["minProperties"].get<size_t>()) {
            ok = fail(errors, where, "too few properties");
        }
        const nlohmann::json empty = nlohmann::json::object();
        const nlohmann::json& properties = s.contains("properties") ? s["properties"] : empty;
        for (const auto& [key, value] : v.items()) {
            if (properties.contains(key)) {
                const std::string property_at = below(at, "properties/" + key);
                if (detail_) used.insert(property_at);
                ok = check(properties[key], property_at, value, below(where, key), used, errors) &&
                     ok;
            } else if (s.contains("additionalProperties") && s["additionalProperties"] == false) {
                ok = fail(errors, where, "unexpected key " + key);
            }
        }
        return ok;
    }

    // A branch's used properties count only if the branch is valid.
    bool branch(const nlohmann::json& s, const std::string& at, const nlohmann::json& v,
                const std::string& where, std::set<std::string>& used) {
        std::set<std::string> branch_used;
        std::vector<std::string> ignored;
        const bool ok = check(s, at, v, where, branch_used, ignored);
        if (ok) used.insert(branch_used.begin(), branch_used.end());
        return ok;
    }

    bool check_combinators(const nlohmann::json& s, const std::string& at, const nlohmann::json& v,
                           const std::string& where, std::set<std::string>& used,
                           std::vector<std::string>& errors) {
        bool ok = true;
        if (s.contains("allOf")) {
            for (size_t i = 0; i < s["allOf"].size(); ++i) {
                ok = check(s["allOf"][i], below(at, "allOf", i), v, where, used, errors) && ok;
            }
        }
        if (s.contains("anyOf")) {
            bool any = false;
            for (size_t i = 0; i < s["anyOf"].size(); ++i) {
                any = branch(s["anyOf"][i], below(at, "anyOf", i), v, where, used) || any;
            }
            if (!any) ok = fail(errors, where, "matches none of anyOf");
        }
        if (s.contains("oneOf")) {
            size_t matches = 0;
            for (size_t i = 0; i < s["oneOf"].size(); ++i) {
                matches += branch(s["oneOf"][i], below(at, "oneOf", i), v, where, used) ? 1 : 0;
            }
            if (matches != 1)
                ok = fail(errors, where,
                          "matches " + std::to_string(matches) + " of oneOf, not exactly one");
        }
        if (s.contains("not")) {
            std::set<std::string> ignored_used;
            std::vector<std::string> ignored;
            if (check(s["not"], below(at, "not"), v, where, ignored_used, ignored))
                ok = fail(errors, where, "matches not");
        }
        if (s.contains("if")) {
            std::set<std::string> ignored_used;
            std::vector<std::string> ignored;
            const bool condition = check(s["if"], below(at, "if"), v, where, ignored_used, ignored);
            if (condition && s.contains("then"))
                ok = check(s["then"], below(at, "then"), v, where, used, errors) && ok;
            if (!condition && s.contains("else"))
                ok = check(s["else"], below(at, "else"), v, where, used, errors) && ok;
        }
        return ok;
    }

    nlohmann::json schema_;
    bool detail_ = true;  // false inside accepts()
    std::set<std::string> used_;
    std::map<std::string, std::regex> regexes_;
};

}  // namespace eosim::testing
