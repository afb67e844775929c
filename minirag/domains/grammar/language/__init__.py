"""The grammar's language: what the lexicon stage mines and query expansion reads.

    lexicon.py     bilingual terms from the documents' tables and lines
    verb_forms.py  a verb's forms by tense and person, from conjugation tables
    slots.py       tenses, persons and constructions named by the word lists in ../data/
    inflection.py  the lemma a regular ending leaves (catched -> catch)
    expand.py      a query as concepts: translations, forms, a paradigm, a tense and person
"""
