#include "core/analysis/structure/family.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kprof::analysis {
namespace {

namespace fs = std::filesystem;

FamilyRules defaults() {
  return FamilyRules::load_dir(fs::path(KPROF_SOURCE_DIR) / "configs" / "families");
}

TEST(Family, DemanglesItaniumNames) {
  EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(demangle("_ZN4vllm15rms_norm_kernelIfLi1EEEvPT_PKS1_.kd"),
            "void vllm::rms_norm_kernel<float, 1>(float*, float const*)");
  EXPECT_EQ(demangle("fused_moe_kernel"), "fused_moe_kernel");
  EXPECT_EQ(demangle("_Znot_a_real_name"), "_Znot_a_real_name");
}

TEST(Family, StructuralStepsAreBracketAware) {
  EXPECT_EQ(strip_return_type("void vllm::rms_norm_kernel<c10::BFloat16, 1>(c10::BFloat16*, int)"),
            "vllm::rms_norm_kernel<c10::BFloat16, 1>(c10::BFloat16*, int)");
  EXPECT_EQ(strip_arguments("ns::f<a (b)>(int, float) const"), "ns::f<a (b)>");
  // "(anonymous namespace)" is a scope, not an argument list (a real PyTorch kernel on MI350X;
  // the family was "at::native::").
  const std::string anon =
      "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
      "4>(long, at::PhiloxCudaState)";
  EXPECT_EQ(strip_return_type(anon),
            "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
            "4>(long, at::PhiloxCudaState)");
  EXPECT_EQ(strip_arguments(strip_return_type(anon)),
            "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
            "4>");
  EXPECT_EQ(strip_arguments("(anonymous namespace)::k(int)"), "(anonymous namespace)::k");
  EXPECT_EQ(fold_templates(
                "at::native::elementwise_kernel<128, 4, at::native::F<float>::{lambda(int)#1}>"),
            "at::native::elementwise_kernel");
  EXPECT_EQ(fold_templates("ns::operator<<"), "ns::operator<<");
  EXPECT_EQ(strip_descriptor_suffix("Cijk_Ailk [clone .kd]"), "Cijk_Ailk");
}

TEST(Family, DefaultRulesFoldTemplatesTritonAndTensileSuffixes) {
  const auto r = defaults();
  EXPECT_EQ(r.family_of("void vllm::rms_norm_kernel<c10::BFloat16, 1>(c10::BFloat16*, "
                        "c10::BFloat16 const*, float, int, int)"),
            "vllm::rms_norm_kernel");
  EXPECT_EQ(r.family_of("_ZN4vllm15rms_norm_kernelIfLi1EEEvPT_PKS1_.kd"), "vllm::rms_norm_kernel");
  EXPECT_EQ(r.family_of("fused_moe_kernel"), "fused_moe_kernel");
  EXPECT_EQ(r.family_of("fused_moe_kernel_0d1d2d3d4c5d6de"), "fused_moe_kernel");
  EXPECT_EQ(r.family_of("fused_moe_kernel_BLOCK_SIZE_M_64_BLOCK_SIZE_N_128_GROUP_SIZE_M_1"),
            "fused_moe_kernel");
  // Digits that are part of the kernel's own name stay.
  EXPECT_EQ(r.family_of("kernel_unified_attention_2d"), "kernel_unified_attention_2d");
  EXPECT_EQ(r.family_of("ullm_aq4_gemm_register_bm8_f32_kernel"),
            "ullm_aq4_gemm_register_bm8_f32_kernel");
  EXPECT_EQ(r.family_of("Cijk_Alik_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN_1LDSB0_GRVW8"),
            "Cijk_Alik_Bljk");
  EXPECT_EQ(r.family_of("__amd_rocclr_copyBuffer"), "__amd_rocclr_copyBuffer");
}

// Names of 64 kB (Tensile solution names run to several kB) are grouped without a crash: regex
// rules see a bounded form (first and last kB), so rules anchored at either end still apply.
TEST(Family, SixtyFourKilobyteNamesAreGroupedByRulesAnchoredAtEitherEnd) {
  const auto r = defaults();
  const std::string middle(64 * 1024, 'X');
  EXPECT_EQ(r.family_of("Cijk_Alik_Bljk_BBS_" + middle), "Cijk_Alik_Bljk");
  EXPECT_EQ(
      r.family_of("fused_moe_" + middle + "_kernel_BLOCK_SIZE_M_64_GROUP_SIZE_M_1"),
      "fused_moe_" + std::string(1024 - 10, 'X') + "..." + std::string(1024 - 38, 'X') + "_kernel");
  const auto user =
      FamilyRules::from_rules({{FamilyRule::Kind::replace, "", "^(.*)$", "[$1]", {}}});
  EXPECT_EQ(user.family_of("a" + middle + "z"),
            "[a" + std::string(1023, 'X') + "..." + std::string(1023, 'X') + "z]");
}

TEST(Family, UserRulesOverrideDefaults) {
  auto r = defaults();
  FamilyRule moe;
  moe.kind = FamilyRule::Kind::family;
  moe.pattern = "fused_moe";
  moe.text = "moe_gemm";
  FamilyRule rename;
  rename.kind = FamilyRule::Kind::replace;
  rename.pattern = "^Cijk_.*$";
  rename.text = "hipblaslt_gemm";
  r.prepend({moe, rename});
  EXPECT_EQ(r.family_of("fused_moe_kernel_0d1d2d"), "moe_gemm");
  EXPECT_EQ(r.family_of("Cijk_Alik_Bljk_BBS_BH_MT64x64x64"), "hipblaslt_gemm");
  EXPECT_EQ(r.family_of("topkGatingSoftmax"), "topkGatingSoftmax");
}

TEST(Family, RuleFileErrorsCarryPositions) {
  const fs::path dir = fs::temp_directory_path() / ("kprof_family_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path f = dir / "bad.yaml";
  { std::ofstream(f) << "rules:\n  - {match: 'a', family: b}\n  - {match: '(', family: c}\n"; }
  try {
    FamilyRules::load_file(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    const auto& d = e.diagnostics()[0];
    ASSERT_TRUE(d.pos);
    EXPECT_EQ(d.pos->line, 3);
    EXPECT_EQ(d.pos->col, 5);
    EXPECT_NE(d.what.find("bad family regex '('"), std::string::npos);
  }
  { std::ofstream(f) << "rules:\n  - {op: fold_template}\n"; }
  try {
    FamilyRules::load_file(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].hint.find("fold_templates"), std::string::npos);
    EXPECT_EQ(e.diagnostics()[0].pos->line, 2);
  }
  { std::ofstream(f) << "rules:\n  - {mtch: x, family: y}\n"; }
  try {
    FamilyRules::load_file(f);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].what.find("unknown key 'mtch'"), std::string::npos);
    EXPECT_NE(e.diagnostics()[0].hint.find("match"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kprof::analysis
