"""Text to one standard word stream, then through the paper's filters
(seeds/000, section 2.2 steps 2-3).

Two outputs, for two purposes:

* :func:`stream_bytes` (:mod:`.stream`) -- NFKC, case-folded, every run of characters that are
  not letters or digits (of any script) collapsed to one space, as UTF-8.  Its
  SHA-1 identifies exact copies, so it is *not* filtered: two invoices that
  differ only in their numbers are not the same document.
* :func:`terms` (:mod:`.filters`) -- the word stream through the number, stop-word, stemming and
  low-IDF filters, as ids into a vocabulary of distinct terms; what gets
  shingled.

Both are vectorised: the text is handled as a numpy byte array, words are told
apart by 64-bit keys in a hash table, and every filter runs once per distinct
term, never once per word.
"""

from lifededup.normalize.filters import DocFrequencies, Terms, number_words, terms
from lifededup.normalize.stream import (
    Words, first_occurrence, split_words, stream_array, stream_bytes, word_stream, words,
)

__all__ = [
    "DocFrequencies",
    "Terms",
    "Words",
    "first_occurrence",
    "number_words",
    "split_words",
    "stream_array",
    "stream_bytes",
    "terms",
    "word_stream",
    "words",
]
