"""``lifededup eval``: every detector on a corpus with known duplicates, side
by side (pairwise precision, recall and F1, clusters formed, signature bytes
and time per document, word edit distance of the accepted pairs); or, without
a truth file, on the user's own store: ``evaluate_archive(store, specs)``
labels a sample of candidate pairs by word edit distance and estimates each
detector's precision and recall."""

from lifededup.eval.archive import ArchiveScore, evaluate_archive, format_archive_table

from lifededup.eval.measure import Corpus, Score, evaluate, read_corpus, true_clusters, true_pairs
from lifededup.eval.table import format_table
from lifededup.eval.truth import SAMPLE_TRUTH, Truth, TruthError, find_sample_corpus, load_truth

__all__ = ["SAMPLE_TRUTH", "ArchiveScore", "Corpus", "Score", "Truth", "TruthError", "evaluate", "evaluate_archive",
           "find_sample_corpus", "format_archive_table", "format_table", "load_truth", "read_corpus", "true_clusters",
           "true_pairs"]
