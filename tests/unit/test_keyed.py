"""A table cell found by the row a question names and the column its cue asks for (answer/select/keyed.py)."""

from __future__ import annotations

import pytest

from minirag.answer.select.candidates import candidates_of
from minirag.answer.select.generic import GenericQuestion
from minirag.answer.select.keyed import keyed_cell
from minirag.text.chunks import Chunk

LIGHTS = """# Status lights

| Light | Looks like | Meaning | What to do |
|---|---|---|---|
| Power | Solid white | The router is on | Nothing. |
| Power | Solid red | Hardware fault | Unplug the router for 1 minute. |
| Internet | Solid white | Connected to the internet | Nothing. |
| Internet | Solid orange | No internet | Restart your modem. |
| Internet | Blinking orange | Firmware update in progress | Do not unplug the router. |
| Wi-Fi | Blinking orange | Pairing failed | Try again. |
"""


def cell(query: str) -> str | None:
    cells = candidates_of(Chunk(id="lights000001", doc_id="lights.md", offset=0, text=LIGHTS), 1)
    found = keyed_cell(GenericQuestion(query, {}, 1.0), cells)
    return found.text if found is not None else None


@pytest.mark.parametrize("query,expected", [
    ("The internet light is solid orange. What should I do?", "Restart your modem"),  # key and state, action
    ("What does it mean when the internet light is blinking orange?", "Firmware update in progress"),
    ("What does a solid red power light mean?", "Hardware fault"),
    ("What does it mean when the Wi-Fi light blinks orange?", "Pairing failed"),
])
def test_the_row_naming_most_cells_whole_gives_the_column_the_cue_asks_for(query, expected):
    assert cell(query) == expected


@pytest.mark.parametrize("query", [
    "What does blinking orange mean?",              # two rows name it whole: a tie is no answer
    "Is the internet light orange when it updates?",  # no cue asks for a column
    "How much does the router weigh?",                # a cue, but no column is named for it
    "What does the USB light mean?",                  # no row named whole
])
def test_no_cell_without_one_row_named_and_a_column_asked(query):
    assert cell(query) is None


GRIND = """| Brew method | Setting | Grind size |
|---|---|---|
| Espresso | 3–8 | fine, like powdered sugar |
| French press | 32–36 | coarse, like sea salt |
"""


@pytest.mark.parametrize("query,expected", [
    ("Which grind setting for a French press?", "32–36"),        # the header it names whole, not "Grind size"
    ("What grind size for espresso?", "fine, like powdered sugar"),
    ("Which brew method is setting 32?", None),                   # the column it names holds no cell it asks
])
def test_without_a_cue_the_column_whose_header_the_question_names(query, expected):
    cells = candidates_of(Chunk(id="grind0000001", doc_id="grind.md", offset=0, text=GRIND), 1)
    found = keyed_cell(GenericQuestion(query, {}, 1.0), cells)
    assert (found.text if found is not None else None) == expected


def test_the_row_line_cites_the_cell():
    cells = candidates_of(Chunk(id="lights000001", doc_id="lights.md", offset=0, text=LIGHTS), 1)
    found = keyed_cell(GenericQuestion("What should I do on a solid red power light?", {}, 1.0), cells)
    assert found.text == "Unplug the router for 1 minute" and "Solid red" in found.line
