"""`msx.dataset.text`: MindSpore's text transforms — vocabularies and lookup, tokenizers (whitespace, regex,
Unicode script, BERT's, SentencePiece), normalisation, sequence shaping, and pre-trained word vectors."""
from .bert_tokenizers import BasicTokenizer, BertTokenizer, WordpieceTokenizer  # noqa: F401
from .jieba_tokenizer import JiebaMode, JiebaTokenizer  # noqa: F401
from .normalize import FilterWikipediaXML, NormalizeForm, NormalizeUTF8, RegexReplace  # noqa: F401
from .ops import (CaseFold, Lookup, PythonTokenizer, RegexTokenizer, ToNumber, UnicodeCharTokenizer,  # noqa: F401
                  UnicodeScriptTokenizer, Vocab, WhitespaceTokenizer, to_bytes, to_str)
from .sentencepiece_ops import (SentencePieceModel, SentencePieceTokenizer, SentencePieceVocab,  # noqa: F401
                                SPieceTokenizerLoadType, SPieceTokenizerOutType)
from .sequences import AddToken, Ngram, SlidingWindow, Truncate, TruncateSequencePair  # noqa: F401
from .vectors import CharNGram, FastText, GloVe, ToVectors, Vectors  # noqa: F401
