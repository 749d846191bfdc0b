#include "session/json_writer.hpp"

#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "session/json_scan.hpp"

namespace ava::session {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

void write_json_string(std::string_view text, std::string& out) {
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of bytes copied verbatim
  std::size_t i = 0;
  while (i < text.size()) {
    if (i + 16 <= text.size()) {
      const unsigned plain = json_scan::plain_prefix16(text.data() + i);
      i += plain;
      if (plain == 16) continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const std::size_t length = base::utf8::sequence(text, i); length > 0) {
        i += length;
        continue;
      }
    }
    out.append(text.substr(run, i - run));
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += kReplacement;  // invalid UTF-8
          i += base::utf8::invalid_subpart(text, i) - 1;
        }
    }
    ++i;
    run = i;
  }
  out.append(text.substr(run));
  out.push_back('"');
}

void write_json(const nlohmann::json& value, std::string& out) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out.push_back(',');
        first = false;
        write_json_string(key, out);
        out.push_back(':');
        write_json(item, out);
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value) {
        if (!first) out.push_back(',');
        first = false;
        write_json(item, out);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::string:
      write_json_string(value.get_ref<const std::string&>(), out);
      return;
    default:
      // Numbers, booleans and null: nlohmann's own formatting.
      out += value.dump();
      return;
  }
}

}  // namespace ava::session
