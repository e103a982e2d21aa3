"""Text transforms written once against the `mindspore.dataset.text` API: make_golden.py records MindSpore 2.10's
outputs (ms210.json), tests/test_dataset_text_transforms.py compares msx's on the same inputs. Files (vocabularies,
vector sets, a corpus for SentencePiece) are written into the case's scratch folder."""
import os

import numpy as np

SENTENCE = "Hello, World! naïve café [CLS] don't 中文字 [unused7]  tab\there [MASK]x"
VOCAB_WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", ",", "world", "!", "na", "##ive", "##ï",
               "caf", "##e", "##é", "don", "'", "t", "中", "文", "字", "[unused7]", "tab", "here", "x", "un",
               "##aff", "##able", "Hello", "World", "##x"]
CORPUS = ["the quick brown fox jumps over the lazy dog", "a stitch in time saves nine",
          "all that glitters is not gold", "the early bird catches the worm", "actions speak louder than words",
          "brown bread and brown butter", "the dog and the fox are friends"] * 4


def out(value):
    if isinstance(value, (list, tuple)):
        return [out(v) for v in value]
    a = np.asarray(value)
    if a.dtype.kind in "SU":
        a = a.astype(str)
        return {"str": a.tolist(), "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": a.round(6).tolist() if a.dtype.kind == "f"
            else a.tolist()}


def _vocab(t):
    return t.Vocab.from_list(VOCAB_WORDS)


# ---------------------------------------------------------------- normalising and filtering strings

def case_normalize_nfkc(t, tmp):
    return out(t.NormalizeUTF8()(np.array(["ﬁ café ２", "Å"])))


def case_normalize_nfd(t, tmp):
    return out(t.NormalizeUTF8(t.NormalizeForm.NFD)("café"))


def case_regex_replace(t, tmp):
    op = t.RegexReplace(r"\s+", "_")
    return [out(op(s)) for s in ["a  b c", "x"]]  # one at a time: MindSpore 2.10 joins the strings of an array


def case_regex_replace_first(t, tmp):
    return out(t.RegexReplace("o", "0", False)("foo boo"))


def case_regex_replace_group(t, tmp):
    return out(t.RegexReplace(r"(\w+)@(\w+)", r"$2 at $1")("me@home you@work"))


def case_filter_wikipedia(t, tmp):
    lines = ["Welcome    to    China", "!!!", "ABC 123", "<page>", "#REDIRECT [[x]]", "abc #redirect",
             "[[Category:Cats|x]] the &amp; cat {{cite}} [http://a.b c] <ref>r</ref>ok", "Ünïcode and 7 días",
             "ok <b>bold</b> text", "x &lt;y&gt; z 90", "tab\tx\ny"]
    op = t.FilterWikipediaXML()
    return [out(op(line)) for line in lines]  # one string at a time: MindSpore's array form blanks the rest after
    # an empty result


# ---------------------------------------------------------------- tokenizers

def case_basic(t, tmp):
    return out(t.BasicTokenizer()(SENTENCE))


def case_basic_lower(t, tmp):
    return out(t.BasicTokenizer(lower_case=True)(SENTENCE))


def case_basic_keep_ws(t, tmp):
    return out(t.BasicTokenizer(keep_whitespace=True)(SENTENCE))


def case_basic_no_preserve(t, tmp):
    return out(t.BasicTokenizer(lower_case=True, preserve_unused_token=False)(SENTENCE))


def case_basic_nfkc_offsets(t, tmp):
    return out(t.BasicTokenizer(normalization_form=t.NormalizeForm.NFKC, with_offsets=True)("ﬁne, Ⅻ 中x"))


def case_basic_offsets(t, tmp):
    return out(t.BasicTokenizer(lower_case=True, with_offsets=True)(SENTENCE))


def case_wordpiece(t, tmp):
    return out(t.WordpieceTokenizer(_vocab(t))(np.array(["unaffable", "hello", "zzz", "naive", "café", "x"])))


def case_wordpiece_offsets(t, tmp):
    return out(t.WordpieceTokenizer(_vocab(t), with_offsets=True)(np.array(["unaffable", "qq", "cafe"])))


def case_wordpiece_empty_unknown(t, tmp):
    return out(t.WordpieceTokenizer(_vocab(t), unknown_token="")(np.array(["unaffable", "qq"])))


def case_wordpiece_max_bytes(t, tmp):
    return out(t.WordpieceTokenizer(_vocab(t), max_bytes_per_token=4)(np.array(["unaffable", "hello", "don"])))


def case_bert(t, tmp):
    return out(t.BertTokenizer(_vocab(t))(SENTENCE))


def case_bert_lower(t, tmp):
    return out(t.BertTokenizer(_vocab(t), lower_case=True)(SENTENCE))


def case_bert_offsets(t, tmp):
    return out(t.BertTokenizer(_vocab(t), lower_case=True, with_offsets=True)("Hello unaffable, [CLS] café!"))


def case_unicode_script(t, tmp):
    return out(t.UnicodeScriptTokenizer()("Hello世界 123abc, naïve  Καλη!"))


def case_unicode_script_ws_offsets(t, tmp):
    return out(t.UnicodeScriptTokenizer(True, True)("ab 12 世界!"))


# ---------------------------------------------------------------- sequences

def case_add_token_begin(t, tmp):
    return out(t.AddToken("[CLS]")(np.array(["a", "b"])))


def case_add_token_end(t, tmp):
    return out(t.AddToken("[SEP]", False)(np.array(["a", "b"])))


def case_truncate(t, tmp):
    return out(t.Truncate(3)(np.array([1, 2, 3, 4, 5])))


def case_truncate_str(t, tmp):
    return out(t.Truncate(2)(np.array(["a", "b", "c"])))


def case_truncate_pair(t, tmp):
    return out(t.TruncateSequencePair(5)(np.array([1, 2, 3, 4]), np.array([5, 6, 7])))


def case_truncate_pair_short(t, tmp):
    return out(t.TruncateSequencePair(9)(np.array([1, 2]), np.array([5, 6, 7])))


def case_sliding_window(t, tmp):
    return out(t.SlidingWindow(3)(np.array([1, 2, 3, 4, 5])))


def case_sliding_window_2d(t, tmp):
    return out(t.SlidingWindow(2, 1)(np.arange(6).reshape(2, 3)))


def case_sliding_window_too_wide(t, tmp):
    return out(t.SlidingWindow(9)(np.array([1, 2, 3])))


def case_ngram(t, tmp):
    return out(t.Ngram(2)(np.array(["a", "b", "c", "d"])))


def case_ngram_multi_pad(t, tmp):
    return out(t.Ngram([1, 3], ("_", 1), ("-", 2), "+")(np.array(["a", "b", "c"])))


def case_ngram_short(t, tmp):
    return out(t.Ngram(4)(np.array(["a", "b"])))


# ---------------------------------------------------------------- vocabularies and vectors

def case_vocab_from_file(t, tmp):
    path = os.path.join(tmp, "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("hello,1\nworld,2\nfoo,3\nbar,4\n")
    vocab = t.Vocab.from_file(path, ",", 3, ["<pad>", "<unk>"], True)
    return sorted(vocab.vocab().items())


def _vectors_file(tmp, name, header=False):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        if header:
            f.write("4 3\n")
        f.write("the 0.1 0.2 0.3\nCat -1 0.5 2\nsat 3 3 3\n, 0 0 1\n")
    return path


def case_vectors_lookup(t, tmp):
    vectors = t.Vectors.from_file(_vectors_file(tmp, "vec.txt"))
    return out(t.ToVectors(vectors)(np.array(["the", "sat", "dog", ","])))


def case_vectors_max_unk(t, tmp):
    vectors = t.Vectors.from_file(_vectors_file(tmp, "vec.txt"), max_vectors=2)
    return out(t.ToVectors(vectors, [9, 9, 9], True)(np.array(["cat", "CAT", "sat", "the"])))


def case_vectors_scalar(t, tmp):
    vectors = t.Vectors.from_file(_vectors_file(tmp, "vec.txt"))
    return out(t.ToVectors(vectors)("the"))


def case_glove(t, tmp):
    vectors = t.GloVe.from_file(_vectors_file(tmp, "glove.6B.3d.txt"))
    return out(t.ToVectors(vectors)(np.array(["Cat", "the"])))


def case_fasttext(t, tmp):
    vectors = t.FastText.from_file(_vectors_file(tmp, "wiki.vec", header=True))
    return out(t.ToVectors(vectors)(np.array(["sat", "nope"])))


def case_fasttext_bad_suffix(t, tmp):
    return out(t.ToVectors(t.FastText.from_file(_vectors_file(tmp, "wiki.txt", header=True)))("the"))


def case_charngram(t, tmp):
    path = os.path.join(tmp, "charNgram.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("1gram-a 0.5 0.5\n2gram-#BEGIN#a 1 0\n2gram-ab 0 1\n1gram-b 2 2\n3gram-abc 1 1\n1gram-c 3 0\n")
    vectors = t.CharNGram.from_file(path)
    return out(t.ToVectors(vectors)(np.array(["ab", "abc", "a", "zz"])))


# ---------------------------------------------------------------- sentencepiece

def _corpus(tmp):
    path = os.path.join(tmp, "corpus.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(CORPUS) + "\n")
    return path


def _spm(t, tmp, model):
    return t.SentencePieceVocab.from_file([_corpus(tmp)], 40, 1.0, model, {})


def case_spm_unigram_str(t, tmp):
    vocab = _spm(t, tmp, t.SentencePieceModel.UNIGRAM)
    return out(t.SentencePieceTokenizer(vocab, t.SPieceTokenizerOutType.STRING)("the brown fox saves time"))


def case_spm_bpe_int(t, tmp):
    vocab = _spm(t, tmp, t.SentencePieceModel.BPE)
    return out(t.SentencePieceTokenizer(vocab, t.SPieceTokenizerOutType.INT)("the lazy dog catches words"))


def case_spm_char(t, tmp):
    vocab = _spm(t, tmp, t.SentencePieceModel.CHAR)
    return out(t.SentencePieceTokenizer(vocab, t.SPieceTokenizerOutType.STRING)("a dog"))


def case_spm_word(t, tmp):
    vocab = t.SentencePieceVocab.from_file([_corpus(tmp)], 30, 1.0, t.SentencePieceModel.WORD, {})
    return out(t.SentencePieceTokenizer(vocab, t.SPieceTokenizerOutType.STRING)("the dog and a zebra"))


def case_spm_save_and_load_file(t, tmp):
    vocab = _spm(t, tmp, t.SentencePieceModel.UNIGRAM)
    t.SentencePieceVocab.save_model(vocab, tmp, "m.model")
    tok = t.SentencePieceTokenizer(os.path.join(tmp, "m.model"), t.SPieceTokenizerOutType.INT)
    return out(tok(np.array("brown butter")))


def case_spm_from_dataset(t, tmp):
    import importlib
    ds = importlib.import_module(t.__name__.rsplit(".", 1)[0])  # mindspore.dataset or msx.dataset, beside text
    dataset = ds.TextFileDataset(_corpus(tmp), shuffle=False)
    vocab = t.SentencePieceVocab.from_dataset(dataset, ["text"], 40, 1.0, t.SentencePieceModel.UNIGRAM, {})
    return out(t.SentencePieceTokenizer(vocab, t.SPieceTokenizerOutType.STRING)("the early worm"))


MS_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unigram_ms210.model")


def case_spm_mindspore_model(t, tmp):
    """A unigram model MindSpore trained (make_golden.py writes it), read back by path."""
    tok = t.SentencePieceTokenizer(MS_MODEL, t.SPieceTokenizerOutType.STRING)
    ids = t.SentencePieceTokenizer(MS_MODEL, t.SPieceTokenizerOutType.INT)
    return [out(tok("the brown fox saves time")), out(ids("brown butter and a quick worm"))]


JIEBA_HMM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hmm_model.utf8")
JIEBA_DICT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jieba.dict.utf8")
JIEBA_TEXT = ["今天天气很好我们去公园散步", "小明硕士毕业于中国科学院计算所后在日本京都大学深造", "他来到了网易杭研大厦"]


def case_jieba_modes(t, tmp):
    return [[out(t.JiebaTokenizer(JIEBA_HMM, JIEBA_DICT, mode)(s)) for s in JIEBA_TEXT]
            for mode in (t.JiebaMode.MP, t.JiebaMode.HMM, t.JiebaMode.MIX)]


def case_jieba_offsets(t, tmp):
    return out(t.JiebaTokenizer(JIEBA_HMM, JIEBA_DICT, t.JiebaMode.MP, with_offsets=True)("今天天气很好 ok"))


def case_jieba_add_word(t, tmp):
    tok = t.JiebaTokenizer(JIEBA_HMM, JIEBA_DICT, t.JiebaMode.MP)
    tok.add_word("天天气")
    tok.add_word("网易", 1000)
    tok.add_dict({"杭研": 2000, "大厦": None})
    return [out(tok(s)) for s in JIEBA_TEXT]
