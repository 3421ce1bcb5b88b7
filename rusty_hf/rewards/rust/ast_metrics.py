"""Static metrics of Rust source from its tree-sitter-rust syntax tree, for the Rust reward.

:func:`analyze_ast` parses once and walks the tree once, counting four families of facts:

* complexity -- cyclomatic complexity per function (1 + branches: ``if``/``while``/``for``, each
  ``match`` arm after the first, each ``&&``/``||``; closures count toward their function), the
  deepest nesting of control flow, and lines of code (non-blank, not comment-only);
* structure -- functions, structs, enums, traits, impls, and the longest function;
* quality -- ``Result``/``Option`` in types, doc comments (and how many items carry one), the ``?``
  operator, panics (``.unwrap()``, ``.expect(..)``, ``panic!``, ``todo!``, ``unimplemented!``),
  ``unsafe``;
* idioms -- iterator adaptors (``.iter().map(..)``...), ``match``, closures, method chains.

The tree is a syntax tree, not a type-checked one: ``x.map(..)`` counts as an iterator adaptor
whatever ``x`` is, and code inside macro calls (``vec![..]``, ``println!(..)``) is not looked into.
Parsing runs in-process and never executes anything.

    from rusty_hf.rewards.rust.ast_metrics import analyze_ast
    metrics = analyze_ast("/// Adds.\\npub fn add(a: i32, b: i32) -> i32 { a + b }")
    metrics.parseable, metrics.n_functions, metrics.doc_comments    # True, 1, 1
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import tree_sitter
import tree_sitter_rust

_BRANCHES = {"if_expression", "while_expression", "for_expression"}
_NESTING = {"if_expression", "while_expression", "for_expression", "loop_expression", "match_expression"}
_ITEMS = {
    "function_item", "struct_item", "enum_item", "trait_item", "impl_item", "mod_item", "use_declaration",
    "const_item", "static_item", "type_item", "macro_definition", "union_item", "function_signature_item",
}  # fmt: skip
_DOCUMENTABLE = {"function_item", "struct_item", "enum_item", "trait_item", "union_item", "type_item"}
_PANIC_METHODS = {"unwrap", "expect"}
_PANIC_MACROS = {"panic", "todo", "unimplemented"}
_ITERATOR_METHODS = {
    "iter", "iter_mut", "into_iter", "map", "filter", "filter_map", "flat_map", "flatten", "fold", "collect",
    "sum", "product", "enumerate", "zip", "rev", "take", "skip", "take_while", "skip_while", "chain", "any",
    "all", "find", "find_map", "position", "count", "for_each", "peekable", "windows", "chunks", "chars",
    "bytes", "lines", "split_whitespace", "cloned", "copied", "step_by", "scan", "max_by_key", "min_by_key",
    "partition", "try_fold", "inspect", "last",
}  # fmt: skip


@dataclass(frozen=True)
class AstMetrics:
    """Counts from one Rust source file. ``parseable`` is False for anything that is not Rust."""

    parseable: bool  # no syntax error, and at least one item (fn, struct, use, ...)
    syntax_errors: int = 0  # ERROR and MISSING nodes
    n_items: int = 0  # top-level and impl/trait-level items: fn, struct, enum, use, const, ...
    # complexity
    cyclomatic: int = 1  # of the most complex function (the whole file when it has none)
    cyclomatic_total: int = 1
    max_nesting: int = 0
    loc: int = 0
    # structure
    n_functions: int = 0
    n_structs: int = 0
    n_enums: int = 0
    n_traits: int = 0
    n_impls: int = 0
    longest_function: int = 0  # lines
    # quality
    result_option_types: int = 0
    doc_comments: int = 0
    documented_items: int = 0
    documentable_items: int = 0
    question_marks: int = 0
    panics: int = 0
    unsafe: int = 0
    # idioms
    iterator_calls: int = 0
    matches: int = 0
    closures: int = 0
    method_chains: int = 0  # chains of two or more method calls (``a.b().c()``)
    longest_chain: int = 0

    @property
    def doc_coverage(self) -> float:
        return self.documented_items / self.documentable_items if self.documentable_items else 0.0


_local = threading.local()  # a tree-sitter Parser is not thread-safe; rewards score in a thread pool


@functools.lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_rust.language())


def _parser() -> tree_sitter.Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = tree_sitter.Parser(_language())
    return parser


def _is_doc(node: tree_sitter.Node) -> bool:
    return node.type in ("line_comment", "block_comment") and any(
        c.type in ("outer_doc_comment_marker", "inner_doc_comment_marker") for c in node.children
    )


def _is_documented(item: tree_sitter.Node) -> bool:
    prev = item.prev_sibling
    while prev is not None and prev.type == "attribute_item":  # docs may sit above #[derive(..)]
        prev = prev.prev_sibling
    return prev is not None and _is_doc(prev) and any(c.type == "outer_doc_comment_marker" for c in prev.children)


def _method_field(call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The ``receiver.name`` part of a method call (also under a turbofish ``.name::<T>``), or None."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "generic_function":
        function = function.child_by_field_name("function")
    return function if function is not None and function.type == "field_expression" else None


def _method_name(call: tree_sitter.Node) -> str | None:
    """``name`` for a method call ``receiver.name(..)``; None for any other call."""
    function = _method_field(call)
    if function is None:
        return None
    field = function.child_by_field_name("field")
    return field.text.decode(errors="replace") if field is not None else None


def _receiver_call(call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The method call this one is chained on (through ``?``), if any."""
    value = _method_field(call).child_by_field_name("value")
    while value is not None and value.type == "try_expression":
        value = value.named_children[0] if value.named_children else None
    return value if value is not None and value.type == "call_expression" and _method_name(value) else None


def _chain_length(call: tree_sitter.Node) -> int:
    length = 1
    while (call := _receiver_call(call)) is not None:
        length += 1
    return length


def _loc(source: str) -> int:
    in_block = False
    count = 0
    for line in source.splitlines():
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        count += bool(text) and not text.startswith("//")
    return count


def analyze_ast(code: str) -> AstMetrics:
    """Parse ``code`` with tree-sitter-rust and return its :class:`AstMetrics` (never raises on bad code)."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str of Rust source, got {type(code).__name__}")
    root = _parser().parse(code.encode("utf-8", errors="replace")).root_node
    c: dict[str, int] = dict.fromkeys(
        ["syntax_errors", "n_functions", "n_structs", "n_enums", "n_traits", "n_impls", "result_option_types",
         "doc_comments", "documented_items", "documentable_items", "question_marks", "panics", "unsafe",
         "iterator_calls", "matches", "closures", "method_chains", "longest_chain", "max_nesting",
         "longest_function", "n_items"], 0,
    )  # fmt: skip
    per_function: list[int] = []  # cyclomatic complexity of each function, in walk order
    outside = 1  # decisions outside any function (consts, statics): the file's own complexity
    # (node, index into per_function or -1, control-flow nesting depth)
    stack: list[tuple[tree_sitter.Node, int, int]] = [(root, -1, 0)]
    while stack:
        node, fn, depth = stack.pop()
        kind = node.type
        if node.is_error or node.is_missing:
            c["syntax_errors"] += 1
        if kind in _ITEMS and node.parent is not None and node.parent.type in ("source_file", "declaration_list"):
            c["n_items"] += 1
        if kind in _DOCUMENTABLE:
            c["documentable_items"] += 1
            c["documented_items"] += _is_documented(node)
        if kind == "function_item":
            c["n_functions"] += 1
            c["longest_function"] = max(c["longest_function"], node.end_point[0] - node.start_point[0] + 1)
            per_function.append(1)
            fn, depth = len(per_function) - 1, 0
        decisions = _count_node(node, kind, c)
        if fn >= 0:
            per_function[fn] += decisions
        else:
            outside += decisions
        if kind in _NESTING and not (kind == "if_expression" and node.parent and node.parent.type == "else_clause"):
            depth += 1
            c["max_nesting"] = max(c["max_nesting"], depth)
        stack.extend((child, fn, depth) for child in node.children)
    return AstMetrics(
        parseable=not root.has_error and c["n_items"] > 0,
        cyclomatic=max(per_function, default=outside),
        cyclomatic_total=sum(per_function) + outside,
        loc=_loc(code),
        **c,
    )


def _count_node(node: tree_sitter.Node, kind: str, c: dict[str, int]) -> int:
    """Add ``node``'s contribution to the counters; return the branches it adds to its function."""
    if kind in ("struct_item", "enum_item", "trait_item", "impl_item"):
        c[{"struct_item": "n_structs", "enum_item": "n_enums", "trait_item": "n_traits"}.get(kind, "n_impls")] += 1
    elif kind in ("line_comment", "block_comment"):
        c["doc_comments"] += _is_doc(node)
    elif kind == "type_identifier" and node.text in (b"Result", b"Option"):
        c["result_option_types"] += 1
    elif kind == "try_expression":
        c["question_marks"] += 1
    elif kind == "unsafe":
        c["unsafe"] += 1
    elif kind == "closure_expression":
        c["closures"] += 1
    elif kind == "macro_invocation":
        name = node.child_by_field_name("macro")
        c["panics"] += name is not None and name.text.decode(errors="replace") in _PANIC_MACROS
    elif kind == "call_expression" and (method := _method_name(node)) is not None:
        c["panics"] += method in _PANIC_METHODS
        c["iterator_calls"] += method in _ITERATOR_METHODS
        parent = node.parent
        while parent is not None and parent.type == "try_expression":
            parent = parent.parent
        is_top = not (parent is not None and parent.type == "field_expression")
        if is_top and _receiver_call(node) is not None:
            c["method_chains"] += 1
            c["longest_chain"] = max(c["longest_chain"], _chain_length(node))
    elif kind == "match_expression":
        c["matches"] += 1
        arms = node.child_by_field_name("body")
        return max(0, sum(a.type == "match_arm" for a in arms.children) - 1) if arms is not None else 0
    elif kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        return int(operator is not None and operator.type in ("&&", "||"))
    return int(kind in _BRANCHES)
