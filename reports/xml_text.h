#pragma once
// Text made safe for XML and HTML: markup characters escaped, characters XML 1.0 forbids (most
// control characters) and bytes that are not UTF-8 replaced, so that any message (an oracle's, a
// crashed worker's standard error) can go into a JUnit file, an SVG or an HTML page.
#include <string>
#include <string_view>

namespace eosim::reports {

// For element content and attribute values (double- or single-quoted).
std::string xml_escape(std::string_view text);

// The text with invalid UTF-8 replaced by U+FFFD and XML-forbidden control characters by '?',
// otherwise unchanged (for JSON, which must be valid UTF-8).
std::string valid_utf8(std::string_view text);

}  // namespace eosim::reports
