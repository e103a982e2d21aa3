"""Record MindSpore 2.10's answers to names_cases.py (validators, engine names) as golden data.

    /work/main/.venv-ms/bin/python tests/golden/dataset_names/make_golden.py

Writes ms210.json beside this file (no pickle); tests/test_dataset_names.py runs the same cases on msx.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import names_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset as ds  # noqa: E402

if __name__ == "__main__":
    record(cases, (ds,), os.path.join(HERE, "ms210.json"))
