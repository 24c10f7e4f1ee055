#include "core/store/json_text.hpp"

#include <nlohmann/json.hpp>

namespace kprof::store {

namespace {
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

std::string json_string_array(const std::vector<std::string>& items) { return dump(items); }

std::string json_pair_array(const std::vector<std::pair<std::string, std::string>>& items) {
  return dump(items);  // [["KEY","VALUE"],...]
}

}  // namespace kprof::store
