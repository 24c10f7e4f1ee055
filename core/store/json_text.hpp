// The JSON the passes table stores (argv, counters, env). Written here; read back through SQLite's
// json_each (see capture_db.cpp), so there is no JSON parser of ours to trust.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/text.hpp"

namespace kprof::store {

using kprof::json_quote;  // core/base/text.hpp
std::string json_string_array(const std::vector<std::string>& items);
std::string json_pair_array(const std::vector<std::pair<std::string, std::string>>& items);

}  // namespace kprof::store
