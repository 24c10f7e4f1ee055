// Every profiler backend this kprof has, by the name the runbook's `profiler.backend` gives.
// Adding a backend: its file core/exec/<name>_backend.cpp defining make_<name>_backend(), and one
// line in backends.def (ARCHITECTURE.md, "Seams").
#include "core/base/text.hpp"
#include "core/exec/profiler/profiler_backend.hpp"
#include "core/runbook/runbook.hpp"

namespace kprof::exec {

// The factories, each defined in its backend's own file.
#define KPROF_BACKEND(name)                                                          \
  std::unique_ptr<ProfilerBackend> make_##name##_backend(const runbook::Runbook& rb, \
                                                         const BackendChoice& choice);
#include "core/exec/profiler/backends.def"
#undef KPROF_BACKEND

namespace {

struct Registered {
  std::string_view name;
  std::unique_ptr<ProfilerBackend> (*make)(const runbook::Runbook&, const BackendChoice&);
};

constexpr Registered k_backends[] = {
#define KPROF_BACKEND(name) {#name, make_##name##_backend},
#include "core/exec/profiler/backends.def"
#undef KPROF_BACKEND
};

}  // namespace

std::unique_ptr<ProfilerBackend> make_profiler_backend(const runbook::Runbook& rb,
                                                       const BackendChoice& choice) {
  for (const auto& b : k_backends)
    if (b.name == rb.profiler.backend.value) return b.make(rb, choice);
  throw Error(ErrorKind::input, runbook::unknown_value(rb, rb.profiler.backend, "profiler.backend",
                                                       profiler_backend_names()));
}

std::vector<std::string> profiler_backend_names() {
  std::vector<std::string> names;
  for (const auto& b : k_backends) names.emplace_back(b.name);
  return names;
}

}  // namespace kprof::exec
