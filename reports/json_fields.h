#pragma once
// Typed access to a record's JSON with the JSON path in every error (RecordError): what the
// readers of reports/run_record.h and reports/history_json.h share.
#include <string>

#include <nlohmann/json.hpp>

#include "reports/run_record.h"

namespace eosim::reports {

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& path) {
    if (!j.is_object() || !j.contains(key)) throw RecordError(path + "/" + key + ": missing");
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw RecordError(path + "/" + key + ": unexpected type " +
                          std::string(j.at(key).type_name()));
    }
}

template <typename T>
T optional_field(const nlohmann::json& j, const char* key, const std::string& path, T fallback) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    return field<T>(j, key, path);
}

// The array at `key` (empty when absent); RecordError when it is not an array.
inline const nlohmann::json& optional_array(const nlohmann::json& j, const char* key,
                                            const std::string& path) {
    static const nlohmann::json empty = nlohmann::json::array();
    if (!j.is_object() || !j.contains(key)) return empty;
    if (!j.at(key).is_array()) throw RecordError(path + "/" + key + ": expected an array");
    return j.at(key);
}

}  // namespace eosim::reports
