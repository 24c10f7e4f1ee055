// This process's environment as a map (name -> value): what kprof passes on to a pass and checks
// the GPU variables against, and what the test double's application inherits.
#pragma once

#include <map>
#include <string>

namespace kprof {

std::map<std::string, std::string> current_environment();

}  // namespace kprof
