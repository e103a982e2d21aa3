"""Record MindSpore 2.10's answers to tests/golden/dataset_semantics/semantics_cases.py as golden data.

    /work/main/.venv-ms/bin/python tests/golden/dataset_semantics/make_golden.py

Writes ms210.json beside this file (no pickle); tests/test_dataset_semantics.py runs the same cases on msx.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import semantics_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset as ds  # noqa: E402


def finish(result):
    """A case returning a Dataset was built without error: MindSpore's error (if any) comes when it is read."""
    return cases.rows(result) if isinstance(result, ds.Dataset) else result


if __name__ == "__main__":
    record(cases, (ds,), os.path.join(HERE, "ms210.json"), finish)
