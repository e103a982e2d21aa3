"""Record MindSpore 2.10's answers to tools_cases.py (FileReader, MindPage, ImageNetToMR) as tools_ms210.json.

    /work/main/.venv-ms/bin/python tests/golden/mindrecord/make_tools_golden.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import tools_cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset as ds  # noqa: E402
import mindspore.mindrecord as mr  # noqa: E402

if __name__ == "__main__":
    record(tools_cases, (mr, ds), os.path.join(HERE, "tools_ms210.json"))
