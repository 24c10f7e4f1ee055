#!/usr/bin/env python3
"""runbooks/workloads/qwen3_generate.py --check on fake site-packages trees (no vLLM, no PyTorch,
no GPU): the vLLM version is read from package metadata and `--graph-mode none` is refused before
0.10.1; a PyTorch wheel that bundles its own rocprofiler-sdk next to a rocprofv3 of another ROCm
tree is refused naming the rocprofv3 and --rocm-root to use.

usage: qwen3_check_test.py SOURCE_DIR ROCTX_LIB_DIR
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE, ROCTX = sys.argv[1], sys.argv[2]
SCRIPT = os.path.join(SOURCE, "runbooks", "workloads", "qwen3_generate.py")


def write(path, text="", mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def roofline_counters():
    """The counters the script's own --check looks for on --list-avail (roofline_counters of
    qwen3_checks.py, beside the script)."""
    spec = importlib.util.spec_from_file_location(
        "qwen3_checks", os.path.join(os.path.dirname(SCRIPT), "qwen3_checks.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script.roofline_counters()


class Check(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.site = os.path.join(self.tmp.name, "site")
        self.rocm = os.path.join(self.tmp.name, "rocm")
        write(os.path.join(self.site, "torch", "__init__.py"))
        write(os.path.join(self.site, "vllm", "__init__.py"), "raise SystemExit('imported')\n")
        # The node the other checks look for (a gfx942 GPU in a KFD topology folder, the weights,
        # the roofline counters on --list-avail), so that only the checks under test can fail.
        self.topology = os.path.join(self.tmp.name, "topology")
        write(os.path.join(self.topology, "1", "properties"), "gfx_target_version 90402\n")
        self.model = os.path.join(self.tmp.name, "model")
        write(os.path.join(self.model, "model.safetensors"))
        listed = "".join(f"echo 'Counter_Name: {c}'\n" for c in roofline_counters())
        write(os.path.join(self.rocm, "bin", "rocprofv3"), "#!/bin/sh\n" + listed + "exit 0\n",
              0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def vllm(self, version):
        write(os.path.join(self.site, f"vllm-{version}.dist-info", "METADATA"),
              f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n")

    def check(self, *args, env_extra=None):
        args = ("--model", self.model) + args
        env = {"PATH": os.path.join(self.rocm, "bin") + ":/usr/bin:/bin",
               "QWEN3_GENERATE_KFD_TOPOLOGY": self.topology,
               "PYTHONPATH": self.site, "LD_LIBRARY_PATH": ROCTX, "ROCM_PATH": self.rocm,
               "VLLM_ENABLE_V1_MULTIPROCESSING": "0", "PYTHONNOUSERSITE": "1"}
        env.update(env_extra or {})
        r = subprocess.run([sys.executable, "-S", SCRIPT, "--check", *args], env=env,
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr

    def test_graph_mode_none_is_refused_before_vllm_0_10_1(self):
        self.vllm("0.10.0")
        code, out = self.check()
        self.assertEqual(code, 2, out)
        self.assertIn("--graph-mode none needs vLLM >= 0.10.1", out)
        self.assertIn("vLLM 0.10.0 is installed", out)
        self.assertIn("use --graph-mode eager", out)
        self.assertNotIn("imported", out)  # read from metadata, vllm never imported
        code, out = self.check("--graph-mode", "eager")
        self.assertEqual(code, 0, out)
        self.assertIn("check ok", out)

    def test_tensor_parallel_needs_its_gpus_spawned_workers_and_the_region_in_them(self):
        self.vllm("0.11.0")
        code, out = self.check("--tensor-parallel", "4")
        self.assertEqual(code, 2, out)
        self.assertIn("--tensor-parallel 4 needs 4 GPUs, but 1 are visible", out)
        for node in ("2", "3", "4"):  # node 0 stays a CPU (gfx_target_version 0)
            write(os.path.join(self.topology, node, "properties"), "gfx_target_version 90402\n")
        write(os.path.join(self.topology, "0", "properties"), "gfx_target_version 0\n")
        code, out = self.check("--tensor-parallel", "4", "--expert-parallel")
        self.assertEqual(code, 0, out)
        self.assertIn("tensor parallel 4 with expert parallel, region in every worker", out)
        # Without VLLM_ENABLE_V1_MULTIPROCESSING=0: the workers are processes of their own anyway.
        code, out = self.check("--tensor-parallel", "4",
                               env_extra={"VLLM_ENABLE_V1_MULTIPROCESSING": "1"})
        self.assertEqual(code, 0, out)
        code, out = self.check("--tensor-parallel", "4", env_extra={"ROCR_VISIBLE_DEVICES": "0,1"})
        self.assertEqual(code, 2, out)
        self.assertIn("needs 4 GPUs, but 2 are visible", out)
        code, out = self.check("--tensor-parallel", "4",
                               env_extra={"VLLM_WORKER_MULTIPROC_METHOD": "fork"})
        self.assertEqual(code, 2, out)
        self.assertIn("VLLM_WORKER_MULTIPROC_METHOD=fork", out)
        code, out = self.check("--tensor-parallel", "4", "--region-in", "entry")
        self.assertEqual(code, 2, out)
        self.assertIn("every rank would record nothing", out)
        code, out = self.check("--expert-parallel")
        self.assertEqual(code, 2, out)
        self.assertIn("--expert-parallel needs --tensor-parallel 2 or more", out)

    def test_graph_mode_none_passes_from_vllm_0_10_1(self):
        self.vllm("0.10.1+rocm700")
        code, out = self.check()
        self.assertEqual(code, 0, out)
        self.assertIn("graph mode none", out)

    def test_no_metadata_says_nothing_of_the_version(self):
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def test_bundled_rocprofiler_sdk_next_to_another_rocprofv3_is_refused(self):
        self.vllm("0.11.0")
        write(os.path.join(self.site, "torch", "lib", "librocprofiler-sdk.so.1"))
        code, out = self.check()
        self.assertEqual(code, 2, out)
        self.assertIn("bundles its own rocprofiler-sdk (librocprofiler-sdk.so.1)", out)
        self.assertIn(os.path.join(self.rocm, "bin", "rocprofv3"), out)
        self.assertIn("--rocm-root", out)
        # A wheel that also ships its rocprofv3: that one is named.
        own = os.path.join(self.site, "torch", "bin", "rocprofv3")
        write(own, "#!/bin/sh\nexit 0\n", 0o755)
        code, out = self.check()
        self.assertEqual(code, 2, out)
        self.assertIn(f"use the wheel's own {own} (runbook profiler.path) with --rocm-root "
                      f"{os.path.join(self.site, 'torch')}", out)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
