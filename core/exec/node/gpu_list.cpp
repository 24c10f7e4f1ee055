#include "core/exec/node/gpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "core/base/error.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

std::vector<int> parse_gpu_list(std::string_view text) {
  std::vector<int> gpus;
  for (const auto& part : split(text, ',')) {
    const std::string_view t = trim(part);
    int g = -1;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), g);
    const bool digits =
        !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || ec != std::errc() || end != t.data() + t.size()) {
      throw Error::input("--gpus: '" + std::string(t) + "' is not a GPU index",
                         "write a list like --gpus 0,1,2,3");
    }
    if (std::find(gpus.begin(), gpus.end(), g) != gpus.end())
      throw Error::input("--gpus: GPU " + std::string(t) + " listed twice", "list each GPU once");
    gpus.push_back(g);
  }
  return gpus;
}

}  // namespace kprof::exec
