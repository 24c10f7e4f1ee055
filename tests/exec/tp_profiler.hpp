// A rocprofv3 stand-in for tensor-parallel runs (executor_ranks_e2e_test.cpp and
// tests/slurm/emit_sbatch_ranks_test.cpp): a shell script that answers --version as ROCm 7.0.2
// and writes one kernel trace and one agent_info per worker into its -d folder, as rocprofv3
// writes one output per process, then runs the application.
#pragma once

namespace kprof::exec::testing {

// Worker r (pid 700 + r) launches 2 dispatches on agent 2 + r; every worker lists agents 0 and 1
// (CPUs) and 2 to 5 (the 4 GPUs of its slot). Without the file `all` beside the script, worker 2
// writes nothing.
inline constexpr const char* k_tp_profiler = R"(case "$1" in --version)
  echo '         version: 1.0.0'; echo '    rocm_version: 7.0.2'; exit 0 ;; esac
D=""
while [ $# -gt 0 ]; do case "$1" in -d) D="$2"; shift 2 ;; --) shift; break ;; *) shift ;; esac; done
mkdir -p "$D/host"
for r in 0 1 2 3; do
  if [ "$r" = 2 ] && [ ! -e "$(dirname "$0")/all" ]; then continue; fi
  P=$((700 + r)); A=$((2 + r))
  {
    echo 'Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z'
    echo "Agent $A,1,$P,1,1,gemm,1,1000000,1005000,0,0,64,1,1,1024,1,1"
    echo "Agent $A,1,$P,2,1,gemm,2,2000000,2005000,0,0,64,1,1,1024,1,1"
  } > "$D/host/${P}_kernel_trace.csv"
  printf 'Node_Id,Logical_Node_Id,Agent_Type,Name\n0,0,CPU,cpu\n1,1,CPU,cpu\n2,2,GPU,gfx942\n3,3,GPU,gfx942\n4,4,GPU,gfx942\n5,5,GPU,gfx942\n' > "$D/host/${P}_agent_info.csv"
done
"$@"
)";

}  // namespace kprof::exec::testing
