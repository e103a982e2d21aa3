"""`msx.dataset.text`: MindSpore's text basics — vocabularies, lookup, tokenizers, string-to-number."""
from .ops import (CaseFold, Lookup, PythonTokenizer, RegexTokenizer, ToNumber, UnicodeCharTokenizer,  # noqa: F401
                  Vocab, WhitespaceTokenizer, to_bytes, to_str)
