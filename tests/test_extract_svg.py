"""SVG drawings are read for the words on them, not for their markup.

The drawings are written as Inkscape writes them (the Debian handbook's
callout icons and title logo were the model: a numbered circle whose digits
are paths, a logo whose words are ``<text>``); read as plain text, as they
were, a drawing was its path data and namespaces."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from lifededup.cli import main
from lifededup.extract import CorruptFile, NoText, extract

INKSCAPE_HEAD = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!-- Created with Inkscape (http://www.inkscape.org/) -->
<svg xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#"
   xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:svg="http://www.w3.org/2000/svg"
   xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
   version="1.0" width="{width}" height="{height}" id="svg2" inkscape:version="0.48.4 r9939">
  <metadata id="metadata7"><rdf:RDF><cc:Work rdf:about=""><dc:format>image/svg+xml</dc:format>
    <dc:title>{dc_title}</dc:title></cc:Work></rdf:RDF></metadata>
  <defs id="defs15" />
  <style type="text/css">.label {{ font-family: Droid Sans; fill: #336699 }}</style>
"""

# the digits of a callout as Inkscape leaves them after "Object to Path": outlines, no text
CALLOUT_PATHS = {
    30: "m 14.784773,12.587051 c -8e-6,0.664066 -0.197924,1.204429 -0.59375,1.621094 -0.395841,0.41667 "
        "-0.947922,0.703779 -1.65625,0.861328 l 0,0.05078 c 0.848953,0.104169 1.484369,0.37109 1.90625,0.800782",
    31: "m 15.438093,21.103517 -1.333984,0 0,-5.359375 c -8e-6,-0.179682 0.0013,-0.36067 0.0039,-0.542969 "
        "0.0026,-0.182284 0.0065,-0.361971 0.01172,-0.539063 0.0052,-0.177075 0.0091,-0.345694 0.01172,-0.505859",
}


def callout(number: int) -> str:
    return (INKSCAPE_HEAD.format(width=32, height=32, dc_title="")
            + '  <circle cx="16" cy="16" r="14" id="circle" style="fill:#336699" />\n'
            + f'  <g id="text2820" style="font-size:10px;fill:#ffffff">\n'
            + f'    <path d="{CALLOUT_PATHS[number]}" id="path{number}" />\n  </g>\n</svg>\n')


def poster() -> str:
    """A drawing with words: a title, flowed text, text in pieces, a description of a shape."""
    return (INKSCAPE_HEAD.format(width=600, height=400, dc_title="Harbour festival poster")
            + '  <rect x="0" y="0" width="600" height="400" style="fill:#ffffff"><desc>A lighthouse drawn in '
              'chalk</desc></rect>\n'
            + '  <path d="m 10.5,20.25 c 1.5,2.75 3.125,4.5 6.0625,7.875 z" id="path4711" />\n'
            + '  <text x="20" y="60" class="label" id="text3001"><tspan x="20" y="60" id="tspan3003">Harbour '
              'festival</tspan><tspan x="20" y="90" id="tspan3005">on the breakwater</tspan></text>\n'
            + '  <flowRoot id="flowRoot1"><flowRegion><rect width="300" height="100" /></flowRegion>'
              '<flowPara>Lanterns, a brass band and the ferry lit at dusk.</flowPara>'
              '<flowPara>Saturday from seven.</flowPara></flowRoot>\n'
            + "</svg>\n")


FIXTURE = Path(__file__).parent / "fixtures" / "svg" / "harbour-festival-poster.svg"


def test_a_drawing_is_the_words_on_it() -> None:
    assert FIXTURE.read_text(encoding="utf-8") == poster(), "the fixture is poster()'s drawing (its README)"
    got = extract(FIXTURE)
    assert got.text.splitlines() == ["A lighthouse drawn in chalk", "Harbour festival on the breakwater",
                                     "Lanterns, a brass band and the ferry lit at dusk. Saturday from seven."], got.text
    assert got.title == "Harbour festival poster" and got.kind == "document" and got.mime == "image/svg+xml"


def test_a_drawing_is_found_by_its_words_and_not_by_its_markup(tmp_path: Path) -> None:
    """As a person meets it: indexed, then searched. Read as text, every
    drawing matched ``inkscape`` and the numbers of its path data."""
    folder = tmp_path / "Pictures"
    folder.mkdir()
    (folder / "poster.svg").write_text(poster(), encoding="utf-8")
    (folder / "notes.txt").write_text("The breakwater lanterns need new wicks before the festival.\n")
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    indexed = runner.invoke(main, ["index", "--db", db, str(folder)])
    assert indexed.exit_code == 0, indexed.output
    found = runner.invoke(main, ["search", "--db", db, "brass band"])
    assert "poster.svg" in found.output, found.output
    for markup in ("inkscape", "flowPara", "tspan3003", "metadata", "4711"):
        hit = runner.invoke(main, ["search", "--db", db, markup])
        assert "poster.svg" not in hit.output, f"{markup!r} is markup, not a word of the drawing: {hit.output}"


def test_numbered_icons_of_shapes_alone_are_no_text_and_not_near_copies(tmp_path: Path) -> None:
    """Two callout icons, 30 and 31: their digits are outlines. As text they
    were near copies (the same markup, other coordinates); a drawing of
    shapes alone has no words, recorded as such, and is in no cluster."""
    folder = tmp_path / "images"
    folder.mkdir()
    for number in CALLOUT_PATHS:
        (folder / f"{number}.svg").write_text(callout(number), encoding="utf-8")
    with pytest.raises(NoText, match="shapes alone"):
        extract(folder / "30.svg")
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    assert runner.invoke(main, ["index", "--db", db, str(folder)]).exit_code == 0
    listed = runner.invoke(main, ["failures", "--db", db])
    assert listed.output.count("no-text\t") == 2 and "shapes alone" in listed.output, listed.output
    dups = runner.invoke(main, ["dups", "--db", db])
    assert "30.svg" not in dups.output and "31.svg" not in dups.output, dups.output


def test_a_drawing_under_another_name_or_gzipped_is_read_alike(tmp_path: Path) -> None:
    """A drawing saved without its suffix is known by its root element; an
    ``.svgz`` is the drawing gzipped."""
    want = extract(_written(tmp_path / "poster.svg", poster().encode())).text
    assert extract(_written(tmp_path / "poster", poster().encode())).text == want
    assert extract(_written(tmp_path / "poster.svgz", gzip.compress(poster().encode()))).text == want


def test_a_damaged_drawing_is_corrupt_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(CorruptFile, match="unreadable XML in the SVG drawing"):
        extract(_written(tmp_path / "broken.svg", b"Saved by a program that wrote its log here instead.\n"))


def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
