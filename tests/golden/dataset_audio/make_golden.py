"""Record MindSpore 2.10's outputs for tests/golden/dataset_audio/audio_cases.py as ms210.json.

    /work/venv-ms/bin/python tests/golden/dataset_audio/make_golden.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import audio_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset.audio as audio  # noqa: E402

if __name__ == "__main__":
    record(cases, (audio,), os.path.join(HERE, "ms210.json"))
