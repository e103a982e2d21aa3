"""Record MindSpore 2.10's outputs for tests/golden/dataset_text/text_cases.py as ms210.json.

    /work/main/.venv-ms/bin/python tests/golden/dataset_text/make_golden.py
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import text_cases as cases  # noqa: E402
from dataset_cases import record  # noqa: E402

import mindspore.dataset.text as text  # noqa: E402

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:  # the unigram model MindSpore trains, kept for msx to read
        vocab = text.SentencePieceVocab.from_file([cases._corpus(tmp)], 40, 1.0, text.SentencePieceModel.UNIGRAM, {})
        text.SentencePieceVocab.save_model(vocab, HERE, os.path.basename(cases.MS_MODEL))
    record(cases, (text,), os.path.join(HERE, "ms210.json"))
