"""msx.dataset.text: tokenizers, Vocab/Lookup, ToNumber — expected values are MindSpore 2.10's outputs for the
same inputs (printed from /work/.venv-ms and written here), plus text pipelines on TextFileDataset."""
import numpy as np
import pytest

import msx as ms
from msx import dataset as ds
from msx.dataset import text
from msx.errors import DatasetError


def test_tokenizers_equal_mindspore():
    assert text.WhitespaceTokenizer()(np.array("hello  big world")).tolist() == ["hello", "big", "world"]
    tokens, starts, ends = text.WhitespaceTokenizer(True)("héllo world")
    assert tokens.tolist() == ["héllo", "world"] and starts.tolist() == [0, 7] and ends.tolist() == [6, 12]
    assert starts.dtype == np.uint32
    assert text.RegexTokenizer(r"\s+|,", r",")("a, b,c").tolist() == ["a", ",", "b", ",", "c"]
    assert text.UnicodeCharTokenizer()("abc").tolist() == ["a", "b", "c"]
    assert str(text.CaseFold()(np.array("ABC ß"))) == "abc ss"


def test_vocab_lookup_and_to_number_equal_mindspore():
    vocab = text.Vocab.from_list(["a", "b", "c"], ["<pad>", "<unk>"], True)
    assert vocab.vocab() == {"<pad>": 0, "<unk>": 1, "a": 2, "b": 3, "c": 4}
    ids = text.Lookup(vocab, "<unk>")(np.array(["a", "z", "c"]))
    assert ids.tolist() == [2, 1, 4] and ids.dtype == np.int32
    assert vocab.tokens_to_ids(["b", "q"]) == [3, -1] and vocab.ids_to_tokens([4, 0]) == ["c", "<pad>"]
    assert text.ToNumber(ms.int32)(np.array(["1", "-2"])).tolist() == [1, -2]
    with pytest.raises(DatasetError, match="token 'z' is not in the vocab"):
        text.Lookup(vocab)(np.array(["z"]))
    with pytest.raises(DatasetError, match="ToNumber"):
        text.ToNumber(ms.int8)(np.array(["300"]))


def test_a_text_pipeline_from_files_to_padded_id_batches(tmp_path):
    (tmp_path / "a.txt").write_text("the cat sat\nthe dog\n")
    (tmp_path / "b.txt").write_text("a cat ran away fast\n")
    lines = ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=False)
    tokenized = lines.map(text.WhitespaceTokenizer(), "text")
    vocab = text.Vocab.from_dataset(tokenized, "text", special_tokens=["<pad>"])
    assert vocab.tokens_to_ids("<pad>") == 0 and vocab.tokens_to_ids("the") == 1  # most frequent first
    batches = tokenized.map(text.Lookup(vocab), "text").padded_batch(2, pad_info={"text": (None, 0)})
    first, second = (b[0] for b in batches.create_tuple_iterator(output_numpy=True))
    # MindSpore's order: the files' first lines, then their second lines
    assert vocab.ids_to_tokens(first[1].tolist()) == ["a", "cat", "ran", "away", "fast"]
    assert first.shape == (2, 5) and first[0].tolist()[3:] == [0, 0]
    assert vocab.ids_to_tokens(second[0].tolist()) == ["the", "dog"]
