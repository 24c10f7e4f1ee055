#include "core/store/json_text.hpp"

#include "core/base/text.hpp"

#include <cstdio>

namespace kprof::store {

std::string json_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += json_quote(items[i]);
  }
  return out + "]";
}

std::string json_pair_array(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '[' + json_quote(items[i].first) + ',' + json_quote(items[i].second) + ']';
  }
  return out + "]";
}

}  // namespace kprof::store
