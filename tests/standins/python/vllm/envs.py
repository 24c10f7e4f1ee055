"""The one vLLM variable the stand-in honours, parsed as vllm/envs.py does:
"VLLM_ENABLE_V1_MULTIPROCESSING": lambda: bool(int(os.getenv("VLLM_ENABLE_V1_MULTIPROCESSING", "1")))
"""

import os


def enable_v1_multiprocessing():
    return bool(int(os.getenv("VLLM_ENABLE_V1_MULTIPROCESSING", "1")))
