"""A small bi-encoder config and toy (question, passage) pairs: what the bi-encoder tests train on."""

from minirag.index.biencoder import BiEncoderConfig


def small_config(**kw) -> BiEncoderConfig:
    base = dict(d=8, hidden=16, token_dim=12, max_tokens=32, epochs=2, batch_size=8, lr=1e-2, temperature=0.1)
    return BiEncoderConfig(**{**base, **kw})


def toy_pairs(n: int = 24) -> list[tuple[str, str]]:
    return [(f"question number {i} about colour {i % 5}", f"passage {i} talks about shade {i % 5} and item {i}")
            for i in range(n)]
