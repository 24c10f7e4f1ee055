// The JSON the passes table stores (argv, counters, env). Written with nlohmann/json; read back
// through SQLite's json_each (see capture_db.cpp), so there is no JSON code of ours to trust.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kprof::store {

std::string json_string_array(const std::vector<std::string>& items);
std::string json_pair_array(const std::vector<std::pair<std::string, std::string>>& items);

}  // namespace kprof::store
