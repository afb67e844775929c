"""The answer selector's grammar feature set: reading a learner's question through the corpus.

    concepts.py     the grammatical concepts a question can ask for
    terms.py        which concept a phrase names (../data/grammar_terms.tsv)
    vocabulary.py   what the corpus names: table keys, forms, translations, endings
    analysis.py     what a question asks about and what it asks for
    features.py     a candidate's features
    ruled_out.py    the candidates no answer can be
    none_option.py  the features of "none of them"
    feature_set.py  all of the above as the core's selector asks for them ("select.features")
"""
