"""Built-in stop-word lists (no download at run time).

English is the list of the Snowball project's English stemmer page
(snowballstem.org/algorithms/english/stop.txt), the list most stemmers are
paired with, with contractions split the way our tokenizer splits them
("don't" -> "don", "t").
"""

from __future__ import annotations

ENGLISH = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their
    theirs themselves what which who whom this that these those am is are was
    were be been being have has had having do does did doing would should
    could ought a an the and but if or because as until while of at by for
    with about against between into through during before after above below
    to from up down in out on off over under again further then once here
    there when where why how all any both each few more most other some such
    no nor not only own same so than too very s t d ll m o re ve y can will
    just don shouldn now isn aren wasn weren hasn haven hadn doesn didn won
    wouldn shan mustn let ain couldn mightn needn cannot
    """.split()
)

STOPWORDS: dict[str, frozenset[str]] = {"english": ENGLISH}


def stopwords_for(language: str) -> frozenset[str]:
    try:
        return STOPWORDS[language]
    except KeyError:
        known = ", ".join(sorted(STOPWORDS))
        raise ValueError(f"no built-in stop-word list for {language!r}; known: {known}") from None
