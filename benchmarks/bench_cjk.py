"""CJK search: each character a word of the index (the store's way, revision 0022) against
overlapping bigrams (Lucene's CJKAnalyzer), on the real Japanese and Chinese man pages of Debian's
manpages-ja and manpages-zh (apt-get install manpages-ja manpages-zh): index size, a word's query time,
the items each finds against a substring search (the truth), and single characters. benchmarks/README.md."""
import collections, gzip, pathlib, random, re, sqlite3, statistics, time

from lifededup.store.searchable import CJK_CHARS as CJK
RUN = re.compile(f"[{CJK}]+")
ONE = re.compile(f"([{CJK}])")
def text_of(p):
    raw = gzip.open(p, "rt", errors="replace").read()
    return "\n".join(l for l in raw.splitlines() if not l.startswith((".", "'\\\"")))
docs = [text_of(p) for d in ("/usr/share/man/ja", "/usr/share/man/zh_CN") for p in sorted(pathlib.Path(d).rglob("*.gz"))]
docs = [d for d in docs if RUN.search(d)]
print(len(docs), "docs", sum(map(len, docs)) // 1000, "k chars")
uni = lambda t: ONE.sub("\x01\\1\x01", t)
def bi(t):
    return RUN.sub(lambda m: " " + (" ".join(m.group(0)[i:i+2] for i in range(max(len(m.group(0)) - 1, 1)))) + " ", t)
db = sqlite3.connect(":memory:")
for name, f in (("u", uni), ("b", bi)):
    db.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
    t = time.perf_counter()
    db.executemany(f"INSERT INTO {name}(rowid, text) VALUES (?, ?)", ((i, f(d)) for i, d in enumerate(docs)))
    db.commit()
    size = sum(len(r[0]) for r in db.execute(f"SELECT block FROM {name}_data"))
    print(name, f"index {size/1e6:.2f} MB, build {time.perf_counter()-t:.2f}s")
# words: 2- and 3-char substrings of runs, frequent and rare
counts = collections.Counter()
for d in docs:
    for m in RUN.finditer(d):
        r = m.group(0)
        for n in (2, 3):
            counts.update(r[i:i+n] for i in range(len(r) - n + 1))
random.seed(1)
common = [w for w, _ in counts.most_common(40)]
rare = random.sample([w for w, c in counts.items() if 3 <= c <= 10], 40)
def q_uni(w): return '"' + " ".join(w) + '"'
def q_bi(w): return w if len(w) == 2 else '"' + " ".join(w[i:i+2] for i in range(len(w)-1)) + '"'
truth = lambda w: {i for i, d in enumerate(docs) if w in d}
for label, words in (("common", common), ("rare", rare)):
    tu, tb, diff_u, diff_b = [], [], 0, 0
    for w in words:
        for _ in range(3):
            t = time.perf_counter(); ru = {r[0] for r in db.execute("SELECT rowid FROM u WHERE u MATCH ?", (q_uni(w),))}; tu.append(time.perf_counter()-t)
            t = time.perf_counter(); rb = {r[0] for r in db.execute("SELECT rowid FROM b WHERE b MATCH ?", (q_bi(w),))}; tb.append(time.perf_counter()-t)
        want = truth(w)
        diff_u += len(ru ^ want); diff_b += len(rb ^ want)
    print(f"{label}: unigram phrase {statistics.median(tu)*1e3:.3f} ms, bigram {statistics.median(tb)*1e3:.3f} ms, "
          f"ratio {statistics.median(tu)/statistics.median(tb):.2f}; items differing from substring truth: uni {diff_u}, bi {diff_b}")
# single characters: unigram finds all; bigram prefix 'x*' misses a char ending a run
singles = [w for w, _ in collections.Counter(c for d in docs for c in RUN.findall(d) for c in c).most_common(200)][100:140]
mu = mb = 0
for c in singles:
    want = truth(c)
    mu += len(want - {r[0] for r in db.execute("SELECT rowid FROM u WHERE u MATCH ?", (c,))})
    mb += len(want - {r[0] for r in db.execute("SELECT rowid FROM b WHERE b MATCH ?", (c + "*",))})
print(f"single chars (40): items missed: unigram {mu}, bigram-prefix {mb}")
