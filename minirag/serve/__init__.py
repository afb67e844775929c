"""`minirag serve`: the built artifacts over HTTP (FastAPI + uvicorn, the `serve` extra).

    state.py        one consistent load of a built corpus, and the watcher that swaps in a rebuilt one
    app.py          /search, /answer, /retrievers, /chunks/{id}, /healthz, the page at /
    openai_api.py   /v1/chat/completions and /v1/models: a configured pipeline as an OpenAI "model"
    models.py       the request bodies and the error answer both route families share
    page.html       the page: a question, the answer with its citations, the ranked list beside it

What it leaves out: building anything (the graph does) and authentication (bind to loopback,
or put it behind a proxy that has it).
"""
