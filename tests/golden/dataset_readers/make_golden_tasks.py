"""Record MindSpore 2.10's rows for tests/golden/dataset_readers/task_cases.py as ms210_tasks.json.

    /work/venv-ms/bin/python tests/golden/dataset_readers/make_golden_tasks.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import task_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset as ds  # noqa: E402

if __name__ == "__main__":
    record(cases, (ds,), os.path.join(HERE, "ms210_tasks.json"))
