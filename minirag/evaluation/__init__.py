"""Evaluation: TREC files, ranking metrics, per-question scoring, diagnosis and the assertions gate."""
