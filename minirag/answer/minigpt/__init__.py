"""Mini-GPT: a small decoder-only transformer on numpy, trained by the graph as a reader.

    ops.py        the layers, each forward with its hand-written backward
    copy_head.py  the copy (pointer) head at the loss positions
    model.py      `MiniGPT`: the model, forward and backward, and generation
    train.py      Adam(W), clipping, the warmup + cosine loop, save and load
    reader.py     `MiniGPTReader`: a prompt in, an answer with citations out

What it leaves out: the reading tasks it learns from (answer/reading/).
"""
