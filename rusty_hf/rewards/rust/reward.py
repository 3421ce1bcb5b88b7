"""The Rust reward: compile a completion with rustc (and clippy) in the sandbox, run the task's tests,
and score the code's syntax tree for structure, quality and idioms.

Score per completion (every weight is a :class:`RustRewardConfig` field; defaults in brackets)::

    compile_success [10]   the code type-checks on its own (rustc --emit=metadata)
  + no_errors       [5]    ... and the task's tests compile against it too (no error anywhere)
  + no_warnings     [1]    ... without a rustc or clippy warning
  + test_pass       [10] x fraction of the task's #[test]s that pass (tasks with tests only): a test
                           passes when it records for the program exactly what it records for the
                           task's reference solution (``harness.py`` decides, outside the program)
  + parseable       [8]    tree-sitter parses it without error and it defines something
  + structure       [2] x  (defines a fn/type, 1/2) + (no function over max_function_lines, 1/2)
  + quality         [3] x  mean of: Result/Option in types, the ? operator, doc coverage of items
  + idioms          [2] x  mean of: iterator adaptors, match, closures, method chains
  + documentation   [1]    at least one doc comment
  - complexity      [0.5]  per unit of cyclomatic complexity above 10 (worst function), at most 5
  - panics          [2]    each unwrap/expect/panic!/todo!/unimplemented!, at most 6
  - unsafe          [1]    any unsafe

Structure, quality, idioms, documentation and parse credit need a parseable tree. The caps keep
compiling code full of ``unwrap`` above code that does not compile, which stays above text that is
not Rust. ``normalize=True`` maps the score linearly to [0, 1] between its lowest and highest
possible values (the highest includes ``test_pass`` only for tasks with tests).

Usage with TRL (dataset columns ``tests`` -- optional, a ``#[cfg(test)] mod tests`` block --, its
reference ``solution`` (required where there are tests: the expected values come from running it),
and ``language``; rows whose language is not "rust" get None)::

    from rusty_hf.rewards import get_reward_funcs
    trainer = GRPOTrainer(..., reward_funcs=get_reward_funcs(["rust"]))
    # or with other weights / a disk cache:
    reward = get_rust_reward(RustRewardConfig(panic_penalty=1.0), cache_dir="outputs/rust_cache")
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rusty_hf.rewards.python_exec.execution import default_workers
from rusty_hf.rewards.extract import completion_text, extract_code
from rusty_hf.rewards.rust.ast_metrics import AstMetrics, analyze_ast
from rusty_hf.rewards.rust.cache import ScoreCache, cache_key
from rusty_hf.rewards.rust.compiler import DEFAULT_TEST_TIMEOUT, CompileResult, compile_rust, harness_fingerprint
from rusty_hf.rewards.rust.harness import DEFAULT_REFERENCES, ReferenceCache, TaskReferenceError
from rusty_hf.rewards.rust.toolchain import RustToolchain, RustToolchainError, find_toolchain
from rusty_hf.sandbox import IsolationMissing, Limits

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RustRewardConfig:
    """Weights of the Rust reward. Bonuses and penalties are positive numbers; penalties are subtracted."""

    compile_success: float = 10.0  # the code compiles: the one thing that matters most
    no_errors: float = 5.0  # and the tests compile against it (right names and signatures)
    no_warnings: float = 1.0  # clean under rustc and clippy (compiling code only)
    test_pass: float = 10.0  # x fraction of tests passed, when the task has tests
    parseable: float = 8.0  # well-formed Rust: a smooth step up from prose for an untrained model
    structure: float = 2.0  # at most; see the module docstring
    max_function_lines: int = 50  # a longer function loses half the structure credit
    quality: float = 3.0  # at most
    idioms: float = 2.0  # at most
    documentation: float = 1.0  # any doc comment (/// or //!)
    complexity_threshold: int = 10  # McCabe's classic limit for one function
    complexity_penalty: float = 0.5  # per unit above the threshold
    max_complexity_penalty: float = 5.0
    panic_penalty: float = 2.0  # per unwrap/expect/panic!/todo!/unimplemented!
    max_panic_penalty: float = 6.0  # so panicky compiling code still beats code that does not compile
    unsafe_penalty: float = 1.0  # once, for any unsafe

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or math.isnan(value):
                raise ValueError(f"RustRewardConfig.{field.name} must be a number >= 0, got {value!r}")

    def bounds(self, has_tests: bool) -> tuple[float, float]:
        """The lowest and highest score a completion can get (for :func:`compute_reward`'s normalisation)."""
        low = -(self.max_complexity_penalty + self.max_panic_penalty + self.unsafe_penalty)
        high = self.compile_success + self.no_errors + self.no_warnings + self.parseable + self.structure
        high += self.quality + self.idioms + self.documentation + (self.test_pass if has_tests else 0.0)
        return low, high


def _fraction(*signals: float) -> float:
    return sum(min(1.0, float(s)) for s in signals) / len(signals)


def reward_components(compiled: CompileResult, metrics: AstMetrics, config: RustRewardConfig) -> dict[str, float]:
    """Each term of the score on its own (penalties negative); :func:`compute_reward` is their sum."""
    c, m = config, metrics
    terms = {
        "compile_success": c.compile_success * compiled.success,
        "no_errors": c.no_errors * (compiled.success and compiled.n_errors == 0),
        "no_warnings": c.no_warnings * (compiled.success and compiled.n_warnings == 0),
        "test_pass": c.test_pass * compiled.test_fraction if compiled.has_tests else 0.0,
    }
    if m.parseable:
        defines = m.n_functions + m.n_structs + m.n_enums + m.n_traits > 0
        short = m.n_functions > 0 and m.longest_function <= c.max_function_lines
        terms["parseable"] = c.parseable
        terms["structure"] = c.structure * _fraction(defines, short)
        terms["quality"] = c.quality * _fraction(m.result_option_types > 0, m.question_marks > 0, m.doc_coverage)
        terms["idioms"] = c.idioms * _fraction(m.iterator_calls > 0, m.matches > 0, m.closures > 0, m.method_chains > 0)
        terms["documentation"] = c.documentation * (m.doc_comments > 0)
    over = max(0, m.cyclomatic - c.complexity_threshold)
    terms["complexity"] = -min(c.max_complexity_penalty, c.complexity_penalty * over)
    terms["panics"] = -min(c.max_panic_penalty, c.panic_penalty * m.panics)
    terms["unsafe"] = -c.unsafe_penalty * (m.unsafe > 0)
    return {name: float(value) for name, value in terms.items()}


def compute_reward(
    compile_result: CompileResult,
    ast_metrics: AstMetrics,
    config: RustRewardConfig | None = None,
    *,
    normalize: bool = False,
) -> float:
    """The Rust reward of one program from its compile result and syntax-tree metrics.

    Args:
        compile_result: from :func:`compile_rust`.
        ast_metrics: from :func:`analyze_ast`.
        config: the weights; None takes the defaults.
        normalize: map the score to [0, 1] between ``config.bounds(...)``.

    Example:
        >>> code = "/// Adds.\\npub fn add(a: i32, b: i32) -> i32 { a + b }"
        >>> compute_reward(compile_rust(code), analyze_ast(code))  # 10 + 5 + 1 + 8 + 2 + 1 + 1
        28.0
    """
    config = config or RustRewardConfig()
    score = sum(reward_components(compile_result, ast_metrics, config).values())
    if not normalize:
        return score
    low, high = config.bounds(compile_result.has_tests)
    return min(1.0, max(0.0, (score - low) / (high - low))) if high > low else 0.0


def score_rust(
    code: str | None,
    tests: str | None,
    toolchain: RustToolchain,
    config: RustRewardConfig,
    *,
    normalize: bool = False,
    clippy: bool = True,
    timeout: float = 60.0,
    limits: Limits | None = None,
    reference: str | None = None,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    references: ReferenceCache | None = None,
) -> dict:
    """Score one program: a JSON-able dict (reward, status, components, compiled, parsed, tests, ...).

    ``reference`` is the task's reference solution, required with ``tests`` (see :func:`compile_rust`).
    Text with syntax errors that defines nothing (prose, an empty answer) never reaches rustc.
    """
    metrics = analyze_ast(code or "")
    has_tests = isinstance(tests, str) and bool(tests.strip())
    if not code or not code.strip() or (metrics.syntax_errors and not metrics.n_items):
        compiled, status = CompileResult(False, 1, 0, has_tests=has_tests), "no_code" if not code else "not_rust"
    else:
        compiled = compile_rust(
            code, tests=tests, reference=reference, toolchain=toolchain, clippy=clippy, timeout=timeout,
            limits=limits, test_timeout=test_timeout, references=references,
        )
        status = compiled.status
    components = reward_components(compiled, metrics, config)
    return {
        "reward": compute_reward(compiled, metrics, config, normalize=normalize),
        "status": status,
        "components": components,
        "compiled": compiled.success,
        "parsed": metrics.parseable,
        "tests": has_tests,
        "test_fraction": compiled.test_fraction,
        "warnings": compiled.n_warnings,
        "panics": metrics.panics,
    }


def _log_metrics(scores: list[dict | None], log_metric: Callable | None, log_extra: Callable | None) -> None:
    scored = [s for s in scores if s is not None and "reward" in s]
    if callable(log_metric) and scored:
        n = len(scored)
        log_metric("rust/compile_rate", sum(s["compiled"] for s in scored) / n)
        log_metric("rust/parse_rate", sum(s["parsed"] for s in scored) / n)
        log_metric("rust/warnings_mean", sum(s["warnings"] for s in scored) / n)
        log_metric("rust/panics_mean", sum(s["panics"] for s in scored) / n)
        tested = [s for s in scored if s["tests"]]
        if tested:
            log_metric("rust/test_pass_rate", sum(s["test_fraction"] for s in tested) / len(tested))
        for name in scored[0]["components"]:
            log_metric(f"rust/{name}", sum(s["components"].get(name, 0.0) for s in scored) / n)
    rust_rows = [s for s in scores if s is not None]
    if callable(log_metric) and rust_rows:
        log_metric("rust/error_rate", sum("reward" not in s for s in rust_rows) / len(rust_rows))
    if callable(log_extra):
        log_extra("rust_status", [s["status"] if s is not None else "skipped" for s in scores])


def default_rust_workers() -> int:
    """Twice the usable cores: a sandboxed compile spends much of its wall time off-CPU (namespace and
    cgroup set-up and teardown, the linker's I/O). On the 2-core reference VM, under load, 4 workers
    scored 1.6x as many fresh completions/s as 2."""
    return 2 * default_workers()


def get_rust_reward(
    config: RustRewardConfig | None = None,
    *,
    normalize: bool = False,
    rustc: str | None = None,
    clippy: bool = True,
    timeout: float = 30.0,
    limits: Limits | None = None,
    max_workers: int | None = None,
    cache_size: int = 4096,
    cache_dir: str | os.PathLike | None = None,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
) -> Callable[..., list[float | None]]:
    """Build a Rust reward with its own weights, toolchain, parallelism and cache.

    Args:
        config: the weights; None takes :class:`RustRewardConfig` defaults.
        normalize: return scores in [0, 1] instead of raw points.
        rustc: the compiler; None looks in ``$RUSTC``, ``PATH`` and ``~/.cargo/bin``.
        clippy: count clippy lints as warnings when ``clippy-driver`` is installed.
        timeout: wall-clock seconds for one program's compiles and test runs.
        limits: sandbox limits; None takes ``compiler.DEFAULT_LIMITS``.
        max_workers: programs compiled at once; defaults to :func:`default_rust_workers`.
        cache_size: scores kept in memory (LRU), keyed by a hash of code, tests, reference, weights,
            toolchain and test harness.
        cache_dir: also keep scores, and the reference solutions' test records, on disk there
            (shared by processes, survives restarts).
        test_timeout: wall-clock seconds for each test's process.

    Returns:
        A TRL reward function named ``rust_reward``; ``.cache`` is its :class:`ScoreCache`.
    """
    config = config or RustRewardConfig()
    cache = ScoreCache(cache_size, cache_dir)
    references = ReferenceCache(directory=os.path.join(cache_dir, "references")) if cache_dir else DEFAULT_REFERENCES
    settings = {"config": dataclasses.asdict(config), "normalize": normalize, "clippy": clippy,
                "harness": harness_fingerprint(test_timeout)}  # fmt: skip
    warned: set[str] = set()  # errors already logged: one line, not one per sample and step

    def warn_once(message: str) -> None:
        if message not in warned:
            warned.add(message)
            logger.error("rust_reward: %s", message)

    def score(code: str | None, tests: str | None, reference: str | None, toolchain: RustToolchain) -> dict:
        try:
            return score_rust(
                code, tests, toolchain, config, normalize=normalize, clippy=clippy, timeout=timeout, limits=limits,
                reference=reference, test_timeout=test_timeout, references=references,
            )  # fmt: skip
        except RustToolchainError:
            raise
        except IsolationMissing as exc:  # no bubblewrap here: every sample is refused, said once
            warn_once(f"every Rust sample gets reward None: {exc}")
            return {"status": "error"}
        except TaskReferenceError as exc:  # the task is broken, not the sample: said once per task
            warn_once(f"samples of a task get reward None: its reference solution is unusable: {exc}")
            return {"status": "reference_error"}
        except Exception as exc:  # noqa: BLE001 -- a broken sample must not stop the training run
            logger.warning("rust_reward: sample skipped (reward None): %s: %s", type(exc).__name__, exc)
            return {"status": "error"}

    def sample_key(completion: object, tests: object, reference: object, toolchain: RustToolchain):
        """(code, cache key) of one sample, or None when its completion, tests or reference are malformed (logged)."""
        try:
            if tests is not None and not isinstance(tests, str):
                raise TypeError(f"tests must be Rust source or None, got {type(tests).__name__}")
            if tests and tests.strip() and not (isinstance(reference, str) and reference.strip()):
                warn_once(
                    "rows with tests need the task's reference solution in a `solution` column (as "
                    "rusty_hf.data.tasks.load_tasks gives): the values each test expects come from running it; "
                    "those rows get reward None"
                )
                return None
            code = extract_code(completion_text(completion), "rust")
            return code, cache_key(code, tests or "", reference if tests else "", settings, toolchain.version)
        except Exception as exc:  # noqa: BLE001 -- one malformed row must not stop the batch
            logger.warning("rust_reward: sample skipped (reward None): %s: %s", type(exc).__name__, exc)
            return None

    def rust_reward(
        completions: Sequence,
        tests: Sequence[str | None] | None = None,
        solution: Sequence[str | None] | None = None,
        **kwargs,
    ) -> list[float | None]:
        """Score Rust completions: compile (rustc + clippy), run the task's tests, read the syntax tree.

        Args:
            completions: one per sample, a string or a conversational list of messages.
            tests: the ``tests`` dataset column (a ``#[cfg(test)] mod tests`` block, or None/"" for none).
            solution: the ``solution`` column, each task's reference solution (needed where there are tests).
            **kwargs: other dataset columns (``language``: rows other than "rust" get None) and TRL's
                extras (``log_metric`` and ``log_extra`` are used when present).

        Returns:
            One score per completion, or None for a row in another language, a sample whose scoring
            failed (logged), a row with tests but no reference, or every row when there is no rustc
            (logged once, naming the fix).

        Example:
            >>> rust_reward(["```rust\\n/// Adds.\\npub fn add(a: i32, b: i32) -> i32 { a + b }\\n```"])
            [28.0]
        """
        n = len(completions)
        tests = list(tests) if tests is not None else [None] * n
        solution = list(solution) if solution is not None else [None] * n
        languages = kwargs.get("language") or [None] * n
        if len(tests) != n or len(languages) != n or len(solution) != n:
            raise ValueError(
                f"got {n} completions but {len(tests)} tests, {len(solution)} solutions and {len(languages)} languages"
            )
        rows = [i for i in range(n) if languages[i] in (None, "rust")]
        scores: list[dict | None] = [None] * n
        try:
            toolchain = find_toolchain(rustc)
            keys = {i: sample_key(completions[i], tests[i], solution[i], toolchain) for i in rows}
            for i in rows:
                scores[i] = cache.get(keys[i][1]) if keys[i] is not None else {"status": "error"}
            todo = {keys[i][1]: i for i in rows if scores[i] is None}  # one compile per distinct program
            keyed = [i for i in rows if keys[i] is not None]
            if callable(kwargs.get("log_metric")) and keyed:
                kwargs["log_metric"]("rust/cache_hit_rate", sum(scores[i] is not None for i in keyed) / len(keyed))
            workers = max(1, min(max_workers or default_rust_workers(), len(todo)))
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rust_reward") as pool:
                scored = pool.map(lambda i: score(keys[i][0], tests[i], solution[i], toolchain), todo.values())
                fresh = dict(zip(todo, scored))
        except RustToolchainError as exc:
            warn_once(f"every Rust sample gets reward None until this is fixed: {exc}")
            return [None] * n
        for key, value in fresh.items():
            if "reward" in value:
                cache.put(key, value)
        for i in rows:
            scores[i] = scores[i] or fresh[keys[i][1]]
        _log_metrics(scores, kwargs.get("log_metric"), kwargs.get("log_extra"))
        return [s.get("reward") if s is not None else None for s in scores]

    rust_reward.cache = cache
    return rust_reward


rust_reward = get_rust_reward()


__all__ = [
    "AstMetrics",
    "CompileResult",
    "RustRewardConfig",
    "RustToolchainError",
    "analyze_ast",
    "compile_rust",
    "compute_reward",
    "get_rust_reward",
    "reward_components",
    "rust_reward",
    "score_rust",
]
