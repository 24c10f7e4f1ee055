// `--gpus LIST`, as `kprof run` and `kprof resume` read it: the GPUs a run may use, one pass on
// each at a time.
#pragma once

#include <string_view>
#include <vector>

namespace kprof::exec {

// "0,1,2,3" -> {0, 1, 2, 3}. Each entry is a GPU index in decimal digits (spaces around it are
// allowed), listed once. Throws Error::input naming the bad entry otherwise ("1x", "-1", "", a
// repeated index).
std::vector<int> parse_gpu_list(std::string_view text);

}  // namespace kprof::exec
