// Test-only: rocprofv3 CSV text for hand-made captures on one MI300X (gfx942), in the layouts of
// rocprofv3 1.0 (ROCm 7.0; ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output/
// generateCSV.cpp writes these headers).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace kprof::analysis::test {

inline const char* const k_agent_header =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\","
    "\"Cpu_Core_Id_Base\",\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\","
    "\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\","
    "\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\","
    "\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\","
    "\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\","
    "\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\","
    "\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\",\"Capability\","
    "\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\","
    "\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\","
    "\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\","
    "\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n";

inline void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A CPU agent and one MI300X (gfx942).
inline std::string mi300x_agents() {
  return std::string(k_agent_header) +
         "0,0,\"CPU\",128,0,0,0,0,0,0,0,0,1,128,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4311,0,0,0,0,"
         "0,0,23,0,0,0,0,0,0,0,0,0,0,0,\"cpu\",\"CPU\",\"cpu\",\"\"\n"
         "1,1,\"GPU\",0,1216,0,0,8,64,0,64,64,8,304,8,4,1,10,4,32,90402,4098,29857,0,0,128,"
         "4,0,8,8,2100,2100,0,0,0,38,32,148,1024,4294967295,0,0,1,1024,1024,1024,2147483647,"
         "65535,65535,\"gfx942\",\"AMD\",\"AMD Instinct MI300X\",\"aqua_vanjaram\"\n";
}

inline const std::string k_trace_header =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
    "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

inline const std::string k_counter_header =
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\","
    "\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n";

}  // namespace kprof::analysis::test
