// Every profiler backend this kprof has, by the name the runbook's `profiler.backend` gives.
// Adding a backend: its own files (core/exec/<name>_backend.{hpp,cpp}, listed in
// core/exec/CMakeLists.txt) and one line in k_backends below (ARCHITECTURE.md, "Seams").
#include "core/base/text.hpp"
#include "core/exec/profiler_backend.hpp"
#include "core/exec/registered_names.hpp"
#include "core/exec/rocprofv3_backend.hpp"

namespace kprof::exec {
namespace {

struct Registered {
  std::string_view name;
  std::unique_ptr<ProfilerBackend> (*make)(const runbook::Runbook&, const BackendChoice&);
};

constexpr Registered k_backends[] = {
    {"rocprofv3", make_rocprofv3_backend},
};

}  // namespace

std::unique_ptr<ProfilerBackend> make_profiler_backend(const runbook::Runbook& rb,
                                                       const BackendChoice& choice) {
  for (const auto& b : k_backends)
    if (b.name == rb.profiler.backend.value) return b.make(rb, choice);
  throw Error(ErrorKind::input, unregistered_name(rb, rb.profiler.backend, "profiler.backend",
                                                  profiler_backend_names()));
}

std::vector<std::string> profiler_backend_names() {
  std::vector<std::string> names;
  for (const auto& b : k_backends) names.emplace_back(b.name);
  return names;
}

}  // namespace kprof::exec
