// kprof's simulation stand-in for rocprofiler-sdk's ROCTx library (librocprofiler-sdk-roctx.so):
// the marker-control calls a workload makes, reported to rocprofv3-sim per process. Under the real
// rocprofv3 these calls reach the rocprofiler-sdk tool loaded into the same process, which starts
// or stops its contexts for that process only (ROCm/rocm-systems projects/rocprofiler-sdk/source/
// lib/rocprofiler-sdk-tool/tool.cpp, cntrl_tracing_callback; the context registry is a process
// global, source/lib/rocprofiler-sdk/context/context.cpp). The double reads the pid of each call
// from the events file it names in ROCPROF_SIM_EVENTS and applies the same per-process rule.
// Signatures: rocprofiler-sdk-roctx/roctx.h (roctx_thread_id_t is uint64_t; 0 = success).
// Found only through LD_LIBRARY_PATH, which only the double sets.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void emit(const std::string& what) {
  const char* path = std::getenv("ROCPROF_SIM_EVENTS");
  if (path == nullptr || *path == '\0') return;  // not under the double: markers do nothing
  const std::string line = std::to_string(::getpid()) + " " + what + "\n";
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // One write with O_APPEND: lines of concurrent processes never interleave.
  const ssize_t n = ::write(fd, line.data(), line.size());
  (void)n;
  ::close(fd);
}

}  // namespace

extern "C" {

using roctx_thread_id_t = uint64_t;
using roctx_range_id_t = uint64_t;

int roctxProfilerPause(roctx_thread_id_t tid) {
  emit("pause " + std::to_string(tid));
  return 0;
}

int roctxProfilerResume(roctx_thread_id_t tid) {
  emit("resume " + std::to_string(tid));
  return 0;
}

int roctxGetThreadId(roctx_thread_id_t* tid) {
  if (tid) *tid = static_cast<roctx_thread_id_t>(::gettid());
  return 0;
}

void roctxMarkA(const char* /*message*/) {}
int roctxRangePushA(const char* /*message*/) { return 0; }
int roctxRangePop() { return 0; }
roctx_range_id_t roctxRangeStartA(const char* /*message*/) { return 1; }
void roctxRangeStop(roctx_range_id_t /*id*/) {}

}  // extern "C"
