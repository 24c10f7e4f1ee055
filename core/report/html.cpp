#include "core/report/html.hpp"

namespace kprof::report {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string shorten(std::string_view s, size_t max) {
  if (s.size() <= max || max < 2) return std::string(s);
  size_t cut = max - 1;
  // Do not split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "\u2026";
}

}  // namespace kprof::report
