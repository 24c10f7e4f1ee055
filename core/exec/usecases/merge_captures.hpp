// Use case `kprof merge DB OTHER.db...`: merges capture databases made on several nodes of one run
// into DB under DB's run lock (store::merge_captures says what merges and what is refused). A DB
// that did not exist is created, and removed again when the merge is refused.
#pragma once

#include <filesystem>
#include <vector>

#include "core/store/merge.hpp"

namespace kprof::exec {

store::MergeReport merge_into(const std::filesystem::path& db,
                              const std::vector<std::filesystem::path>& sources);

}  // namespace kprof::exec
