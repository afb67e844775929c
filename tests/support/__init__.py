"""What the tests share: a project to build (project.py), chunks (chunks.py), a tiny BERT folder
(bert_model.py), the BM25 reference search (bm25_reference.py), HTTP calls (http.py)."""
