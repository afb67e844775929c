"""Bounded YAML: what a document may expand to is checked before any Python object is built.

Every YAML minirag reads from a user (front matter, configs, assertion files) goes through
`load_yaml`. Two shapes are refused with the file and line, whatever field they sit in:

- an alias bomb: anchors that refer to anchors (`a1: &a1 [*a0, *a0, ...]`, nine levels of
  nine) are a few lines of text but 9^9 values once expanded. PyYAML builds them sharing
  references, cheaply; the first code that walks the value (a type check's message, a
  schema validator, a JSON dump) expands it and runs out of memory or time;
- deep nesting (`[[[[...]]]]` 20,000 deep), which makes PyYAML's composer recurse past
  Python's limit.

- a key twice in one mapping (`chunk:` twice, `lang: en` then `lang: es`), which PyYAML
  resolves silently by keeping the last; refused naming the key and both lines.

The check walks PyYAML's event stream, which is flat, counting every node with each alias
counted as the size of what it names: linear in the text, whatever the text expands to.
`check_loaded` applies the same budget to a value already loaded by someone else (Snakemake
loads a `--configfile` before minirag sees it), counting shared references once each.

What it leaves out: JSON (io.py bounds its nesting) and YAML's unsafe tags (safe_load refuses those).
"""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it: the same events and values, ten times faster. It
# refuses some text PyYAML's own parser reads (an escaped lone surrogate), which load_yaml then reads
# with PyYAML's, so the reader refuses it by what it holds, as before
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YAMLBudgetError(ValueError):
    """A YAML document too large once expanded, or nested too deeply; the message names the line."""


def check_events(text: str, where: str, max_nodes: int, max_depth: int, first_line: int = 1,
                 loader=LOADER) -> None:
    """Refuse `text` if it holds more than `max_nodes` nodes, aliases expanded, or nests deeper
    than `max_depth` (messages count lines from `first_line`); invalid YAML raises yaml.YAMLError
    as safe_load would."""
    sizes: dict[str, int] = {}  # anchor -> nodes of what it names, expanded
    stack: list[list] = []      # [anchor, nodes so far, keys seen or None (a sequence), next is a key] per collection
    total = 0

    def node_done(event, key: str | None = None) -> None:
        """A node ended inside the innermost collection: in a mapping, a key (checked against the
        mapping's other keys) or a value, alternately."""
        if not stack or stack[-1][2] is None:
            return
        frame = stack[-1]
        if frame[3] and key is not None and key != "<<":
            line = event.start_mark.line + first_line
            if key in frame[2]:
                raise YAMLBudgetError(f"{where}:{line}: duplicate key {key[:80]!r} (first on line {frame[2][key]}); "
                                      "keep one")
            frame[2][key] = line
        frame[3] = not frame[3]

    def add(n: int, event) -> None:
        nonlocal total
        total += n
        if stack:
            stack[-1][1] += n
        if total > max_nodes:
            raise YAMLBudgetError(f"{where}:{event.start_mark.line + first_line}: expands to more than "
                                  f"{max_nodes:,} values (aliases of aliases: a YAML alias bomb?); write them out")

    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(stack) >= max_depth:
                line = event.start_mark.line + first_line
                raise YAMLBudgetError(f"{where}:{line}: nested more than {max_depth} deep")
            add(1, event)
            stack.append([event.anchor, 1, {} if isinstance(event, yaml.MappingStartEvent) else None, True])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, n = stack.pop()[:2]
            if anchor is not None:
                sizes[anchor] = n
            node_done(event)
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                sizes[event.anchor] = 1
            add(1, event)
            node_done(event, event.value)
        elif isinstance(event, yaml.AliasEvent):
            node_done(event)
            if event.anchor not in sizes and any(frame[0] == event.anchor for frame in stack):
                line = event.start_mark.line + first_line
                raise YAMLBudgetError(f"{where}:{line}: *{event.anchor} refers to the value it is inside "
                                      "(a recursive YAML alias)")
            add(sizes.get(event.anchor, 1), event)


def load_yaml(text: str, where: str, max_nodes: int = 100_000, max_depth: int = 40, first_line: int = 1) -> Any:
    """yaml.safe_load(text) after `check_events`; errors name `where` (a file) and the line."""
    for loader in dict.fromkeys((LOADER, yaml.SafeLoader)):
        try:
            check_events(text, where, max_nodes, max_depth, first_line, loader)
            return yaml.load(text, Loader=loader)
        except yaml.YAMLError:
            if loader is yaml.SafeLoader:
                raise


def read_yaml(path, max_nodes: int = 100_000, max_depth: int = 40) -> Any:
    """`load_yaml` of a UTF-8 file."""
    from .io import read_text
    return load_yaml(read_text(path), str(path), max_nodes, max_depth)


def check_loaded(value: Any, where: str, max_nodes: int = 100_000, max_depth: int = 40) -> None:
    """The budget of `check_events` for a value already loaded: dicts and lists counted with their
    contents expanded, each shared object's size computed once (no walk of the expansion)."""
    sizes: dict[int, int] = {}  # id of a dict or list -> its nodes, expanded
    open_: set[int] = set()     # collections being counted: one met again inside itself is a cycle

    def size(v: Any) -> int:
        return sizes[id(v)] if isinstance(v, (dict, list)) else 1

    def fail(path: str, msg: str):
        raise YAMLBudgetError(f"{where}: {path or '(top level)'}: {msg}")

    stack: list[tuple[Any, int, bool, str]] = [(value, 0, False, "")]
    while stack:
        node, depth, done, path = stack.pop()
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if done:
            open_.discard(id(node))
            sizes[id(node)] = 1 + sum(size(v) + isinstance(node, dict) for _, v in children)
            if sizes[id(node)] > max_nodes:
                fail(path, f"expands to more than {max_nodes:,} values (aliases of aliases: a YAML alias bomb?); "
                     "write the values out")
            continue
        if depth > max_depth:
            fail(path, f"nested more than {max_depth} deep")
        open_.add(id(node))
        stack.append((node, depth, True, path))
        for key, child in children:
            if not isinstance(child, (dict, list)) or id(child) in sizes:
                continue
            if id(child) in open_:
                fail(path, "refers to itself (a recursive YAML alias)")
            stack.append((child, depth + 1, False, f"{path}.{key}" if path else str(key)))
