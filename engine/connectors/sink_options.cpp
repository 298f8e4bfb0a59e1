#include "engine/connectors/sink_options.h"

#include <algorithm>

namespace eosim::engine {

std::string describe_json_value(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::object: return "an object";
        case nlohmann::json::value_t::array: return "an array";
        case nlohmann::json::value_t::null: return "null";
        default: break;
    }
    std::string text = value.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

namespace {

constexpr auto describe = describe_json_value;

}  // namespace

std::string json_pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

SinkOptions::SinkOptions(nlohmann::json options) : options_(std::move(options)) {
    if (options_.is_null()) options_ = nlohmann::json::object();
}

bool SinkOptions::has(const std::string& key) const { return options_.contains(key); }

const nlohmann::json* SinkOptions::find(const std::string& key) {
    read_.insert(key);
    auto it = options_.find(key);
    return it == options_.end() ? nullptr : &*it;
}

void SinkOptions::fail(const std::string& key, const std::string& expected) const {
    throw SinkOptionsError("/" + json_pointer_token(key), expected);
}

std::string SinkOptions::string(const std::string& key, const std::string& fallback) {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_string() || v->get<std::string>().empty())
        fail(key, "expected a non-empty string, found " + describe(*v));
    return v->get<std::string>();
}

std::string SinkOptions::required_string(const std::string& key) {
    if (!has(key)) fail(key, "missing required key \"" + key + "\" (expected a non-empty string)");
    return string(key, "");
}

int64_t SinkOptions::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return fallback;
    const bool integral = v->is_number_integer() || v->is_number_unsigned();
    const bool in_range = integral && (v->is_number_unsigned()
                                           ? v->get<uint64_t>() <= static_cast<uint64_t>(max) &&
                                                 static_cast<int64_t>(v->get<uint64_t>()) >= min
                                           : v->get<int64_t>() >= min && v->get<int64_t>() <= max);
    if (!in_range) {
        fail(key, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                      "], found " + describe(*v));
    }
    return v->get<int64_t>();
}

bool SinkOptions::boolean(const std::string& key, bool fallback) {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(key, "expected true or false, found " + describe(*v));
    return v->get<bool>();
}

size_t SinkOptions::choice(const std::string& key, const std::vector<std::string>& choices,
                           size_t fallback) {
    const nlohmann::json* v = find(key);
    if (v == nullptr) return fallback;
    if (v->is_string()) {
        auto it = std::find(choices.begin(), choices.end(), v->get<std::string>());
        if (it != choices.end()) return static_cast<size_t>(it - choices.begin());
    }
    std::string list;
    for (const std::string& c : choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
    fail(key, "expected one of " + list + ", found " + describe(*v));
}

std::vector<std::string> SinkOptions::strings(const std::string& key) {
    const nlohmann::json* v = find(key);
    const auto all_strings = [](const nlohmann::json& a) {
        return std::all_of(a.begin(), a.end(),
                           [](const nlohmann::json& e) { return e.is_string(); });
    };
    if (v == nullptr || !v->is_array() || v->empty() || !all_strings(*v)) {
        fail(key, "expected a non-empty array of strings, found " +
                      (v == nullptr ? std::string("nothing") : describe(*v)));
    }
    return v->get<std::vector<std::string>>();
}

void SinkOptions::finish() const {
    for (const auto& item : options_.items()) {
        if (read_.count(item.key()) != 0) continue;
        std::string known;
        for (const std::string& k : read_) known += (known.empty() ? "" : ", ") + k;
        fail(item.key(), "unknown key \"" + item.key() +
                             "\"; expected one of: " + (known.empty() ? "(none)" : known));
    }
}

}  // namespace eosim::engine
