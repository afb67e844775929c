"""Arabic orthographic normalization, the step an Arabic analyzer runs before stopwords and stemming.

Arabic is written with optional marks and with letters that writers interchange, so one word
reaches an index in several spellings (ARCD's questions write "اهمية" and "هى" where its
passages write "أهمية" and "هي"). Following Lucene's ArabicNormalizer (after Larkey,
Ballesteros & Connell, "Improving stemming for Arabic information retrieval", SIGIR 2002):

    أ إ آ ٱ -> ا     alef with hamza above or below, with madda, wasla: bare alef
    ى -> ي           alef maksura: yaa (the two are interchanged in final position)
    ة -> ه           taa marbuta: haa (likewise)
    ـ                tatweel (kashida, a stretching stroke): removed
    ً ٌ ٍ َ ُ ِ ّ ْ ٰ     tanween, short vowels, shadda, sukun, dagger alef: removed

    normalize_arabic("الأَهمّيّة الكبرى") == "الاهميه الكبري"

Before a stemmer, `taa_marbuta=False` leaves ة for after stemming (`taa_to_haa` on the stems):
Snowball's Arabic stemmer strips ة as a feminine suffix ("المدينة" -> "مدين") but reads a final ه
as the pronoun "his" and keeps the word whole ("المدينه" -> "مدينه"), so mapping ة first would
undo its suffix stripping (bench/arcd_analyzers.py measures both orders). Snowball normalizes
alef forms and ى itself; doing it here as well keeps stopword matching independent of it.

What it leaves out: hamza on waw and yaa (ؤ ئ stay: they carry meaning a normalizer should
not guess), Persian and Urdu letters, Arabic-Indic digits (\\w matches them as they are),
and stemming (Snowball's Arabic stemmer, through PyStemmer, does that).
"""

from __future__ import annotations

import re

LETTERS = str.maketrans({"\u0623": "\u0627", "\u0625": "\u0627", "\u0622": "\u0627", "\u0671": "\u0627",
                         "\u0649": "\u064a"})
TAA = str.maketrans({"\u0629": "\u0647"})
MARKS_RE = re.compile("[\u0640\u064b-\u0652\u0670]")  # tatweel, tanween..sukun, dagger alef


def normalize_arabic(text: str, taa_marbuta: bool = True) -> str:
    """The text with Arabic marks removed and interchangeable letters made one (ة too unless
    `taa_marbuta` is False); other scripts pass unchanged."""
    text = MARKS_RE.sub("", text).translate(LETTERS)
    return taa_to_haa(text) if taa_marbuta else text


def taa_to_haa(text: str) -> str:
    return text.translate(TAA)
