"""DrawingML graphics Office files share: a chart's words and a SmartArt graphic's boxes.

PowerPoint and Word keep a chart (``c:chartSpace``) and a SmartArt graphic's
data (``dgm:dataModel``) in parts of their own, which python-pptx reads only
in part (its chart objects raise NotImplementedError for some kinds) and
python-docx not at all; both formats read them here from the part's XML.
"""

from __future__ import annotations

from lifededup.extract.base import CorruptFile, parse_xml

CHART = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
         "a": "http://schemas.openxmlformats.org/drawingml/2006/main"}


def chart_text(xml: bytes) -> str:
    """A chart's words as its slide or page shows them: its title, its series' names, its categories' labels
    (not its values, nor categories that are numbers: Excel's date serials, 37261.0).  A deck of charts was
    "empty: no slide text" (17 of python-pptx's test decks)."""
    try:
        chart = parse_xml(xml, "a chart")
    except CorruptFile:  # a chart's damage loses that chart alone
        return ""
    title = " ".join(t.text or "" for t in chart.iterfind("c:chart/c:title//a:t", CHART))
    series = [v.text or "" for v in chart.iterfind(".//c:ser/c:tx//c:v", CHART)]
    labels = [v.text or "" for v in chart.iterfind(".//c:ser/c:cat//c:pt/c:v", CHART)]
    lines = (title, " ".join(dict.fromkeys(series)), " ".join(w for w in dict.fromkeys(labels) if not _is_number(w)))
    return "\n".join(line for line in lines if line.strip())


DIAGRAM = {"dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
           "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
           "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"}


def diagram_text(xml: bytes) -> str:
    """Each box of a SmartArt graphic (a process, an organisation chart) as a line: the points holding text."""
    try:
        data = parse_xml(xml, "a SmartArt graphic")
    except CorruptFile:
        return ""
    boxes = (" ".join(t.text or "" for t in point.iterfind("dgm:t//a:t", DIAGRAM))
             for point in data.iterfind("dgm:ptLst/dgm:pt", DIAGRAM))
    return "\n".join(box.strip() for box in boxes if box.strip())


def _is_number(label: str) -> bool:
    try:
        float(label)
    except ValueError:
        return False
    return True
