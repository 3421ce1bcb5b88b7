"""Where the code corpus comes from: source roots on this machine, and each file's package and license.

    from rusty_hf.data.code_sources import SourceRoot, default_roots, iter_files
    for root in default_roots(["python", "rust"]):
        for path, package, license in iter_files(root): ...

Sources (a `SourceRoot` each; tests pass their own, so nothing real is scanned there):

- ``stdlib``: the interpreter's standard library (``sysconfig.get_paths()["stdlib"]``), PSF-2.0;
- ``site-packages``: installed distributions, each file credited via ``importlib.metadata`` to the
  distribution whose RECORD lists it, with its License-Expression / License / license classifiers;
- ``pypi``: the pure-Python wheels of ``recipes/corpus_sources.txt`` (pinned by version and SHA-256) unpacked into
  ``data/corpus_sources/python`` (``PIP_SOURCES_INSTALL``; never imported), credited like site-packages.
  They make the Python part of the corpus the same on every machine, whatever else is installed;
- ``rust-src``: Debian's ``rust-src`` (/usr/lib/rustlib/src/rust -> /usr/src/rustc-*: std, core, the
  compiler, rustdoc) and rustup's rust-src component (~/.rustup/toolchains/*/lib/rustlib/src/rust) if installed;
- ``debian-rust``: crate sources of Debian's ``librust-*-dev`` packages in /usr/share/cargo/registry.
  Rust rows take package and license from the nearest Cargo.toml, else the first ``License:`` of
  /usr/share/doc/<debian package>/copyright.

The Rust sources, on Debian bookworm (crate dependencies come along; ``APT_INSTALL``)::

    apt-get install -y --no-install-recommends rust-src librust-serde-dev librust-serde-json-dev \
        librust-serde-derive-dev librust-regex-dev librust-regex-syntax-dev librust-aho-corasick-dev \
        librust-memchr-dev librust-syn-dev librust-quote-dev librust-proc-macro2-dev librust-tokio-dev \
        librust-futures-dev librust-bytes-dev librust-hyper-dev librust-url-dev librust-rand-dev \
        librust-clap-dev librust-anyhow-dev librust-thiserror-dev librust-itertools-dev librust-log-dev \
        librust-libc-dev librust-hashbrown-dev librust-indexmap-dev librust-chrono-dev librust-rayon-dev \
        librust-crossbeam-channel-dev librust-once-cell-dev librust-num-traits-dev librust-smallvec-dev \
        librust-nom-dev librust-toml-dev librust-base64-dev
"""

from __future__ import annotations

import functools
import glob
import importlib.metadata
import os
import re
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rusty_hf.data.corpus import SKIP_DIRS

SOURCES = {"stdlib": "python", "site-packages": "python", "pypi": "python", "rust-src": "rust", "debian-rust": "rust"}
SUFFIXES = {"python": ".py", "rust": ".rs"}
# Widely used crates (serde, regex, syn, tokio, clap, ...); apt adds their dependencies' sources too.
DEBIAN_RUST_PACKAGES = tuple(f"librust-{c}-dev" for c in (
    "serde serde-json serde-derive regex regex-syntax aho-corasick memchr syn quote proc-macro2 tokio futures "
    "bytes hyper url rand clap anyhow thiserror itertools log libc hashbrown indexmap chrono rayon "
    "crossbeam-channel once-cell num-traits smallvec nom toml base64").split())
APT_INSTALL = "apt-get install -y --no-install-recommends rust-src " + " ".join(DEBIAN_RUST_PACKAGES)
DEBIAN_REGISTRY = Path("/usr/share/cargo/registry")
PYPI_SOURCES_DIR = Path("data/corpus_sources/python")
PYPI_SOURCES_LIST = Path("recipes/corpus_sources.txt")


def pip_sources_command(target: str | os.PathLike = PYPI_SOURCES_DIR, requirements: str | os.PathLike = PYPI_SOURCES_LIST,
                        python: str = "python3") -> list[str]:
    """The pip command that unpacks the pinned corpus wheels into ``target``: no dependencies, no
    bytecode, wheels only, pure-Python ones for Python 3.11 (the same files whatever this machine runs),
    each checked against the SHA-256 its line in ``requirements`` pins (a changed file fails the fetch)."""
    return [python, "-m", "pip", "install", "--require-hashes", "--no-deps", "--no-compile", "--only-binary=:all:", "--python-version",
            "3.11", "--platform", "any", "--target", str(target), "-r", str(requirements)]


PIP_SOURCES_INSTALL = " ".join(pip_sources_command())
DEBIAN_RUST_SRC = Path("/usr/lib/rustlib/src/rust")

@dataclass(frozen=True)
class SourceRoot:
    source: str  # a key of SOURCES
    path: Path

    @property
    def language(self) -> str:
        return SOURCES[self.source]


def default_roots(
    languages: Sequence[str] = ("python", "rust"), pypi_sources: str | os.PathLike | None = PYPI_SOURCES_DIR
) -> list[SourceRoot]:
    """The roots present on this machine, std libraries before the packages that may copy from them.
    ``pypi_sources``: the folder `PIP_SOURCES_INSTALL` fills (relative to the working directory), if present."""
    roots = []
    if "python" in languages:
        paths = sysconfig.get_paths()
        roots.append(SourceRoot("stdlib", Path(paths["stdlib"])))
        roots += [SourceRoot("site-packages", Path(p)) for p in dict.fromkeys((paths["purelib"], paths["platlib"]))]
        if pypi_sources is not None:
            roots.append(SourceRoot("pypi", Path(pypi_sources)))
    if "rust" in languages:
        rustup = sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/lib/rustlib/src/rust")))
        roots += [SourceRoot("rust-src", Path(p)) for p in [str(DEBIAN_RUST_SRC), *rustup]]
        roots.append(SourceRoot("debian-rust", DEBIAN_REGISTRY))
    return [r for r in roots if r.path.is_dir()]


def distribution_license(meta: importlib.metadata.PackageMetadata) -> str:
    """License-Expression, else a one-line License field, else the license classifiers."""
    if meta.get("License-Expression"):
        return meta["License-Expression"].strip()
    text = (meta.get("License") or "").strip()
    if text and text.upper() != "UNKNOWN" and "\n" not in text and len(text) <= 100:
        return text
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    if classifiers:
        return "; ".join(dict.fromkeys(classifiers))
    return text.splitlines()[0][:100] if text and text.upper() != "UNKNOWN" else ""  # a pasted license text


def _distribution_owners(site: Path) -> dict[str, tuple[str, str]]:
    """Absolute file path -> (distribution name, license) from every RECORD under ``site``."""
    owners = {}
    for dist in sorted(importlib.metadata.distributions(path=[str(site)]), key=lambda d: d.metadata["Name"] or ""):
        name, license_ = dist.metadata["Name"] or "", distribution_license(dist.metadata)
        for file in dist.files or ():
            owners.setdefault(os.path.normpath(site / file), (name, license_))
    return owners


@functools.lru_cache(maxsize=None)
def debian_license(package: str) -> str:
    """The first ``License:`` of /usr/share/doc/<package>/copyright ('' when absent)."""
    try:
        lines = Path(f"/usr/share/doc/{package}/copyright").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return next((line.split(":", 1)[1].strip() for line in lines.splitlines() if line.startswith("License:")), "")


def _package_table(manifest: str) -> dict[str, str]:
    """The string keys of a Cargo.toml's ``[package]`` table (a line scan: tomllib needs Python 3.11)."""
    header = re.search(r"^\[package\][ \t]*$", manifest, flags=re.M)
    table = re.split(r"^\[", manifest[header.end():], maxsplit=1, flags=re.M)[0] if header else ""
    pairs = re.findall(r"""^([A-Za-z_-]+)\s*=\s*(["'])([^"'\n]*)\2""", table, flags=re.M)  # "basic" or 'literal'
    return {key: value for key, _, value in pairs}


@functools.lru_cache(maxsize=None)
def _crate_of(folder: Path, stop: Path) -> tuple[str, str]:
    """(crate name, license) from the nearest Cargo.toml with a [package], searching up to ``stop``."""
    manifest = folder / "Cargo.toml"
    if manifest.is_file():
        package = _package_table(manifest.read_text(encoding="utf-8", errors="replace"))
        if "name" in package:
            return package["name"], package.get("license", "")
    if folder == stop or folder.parent == folder:
        return "", ""
    return _crate_of(folder.parent, stop)


def _walk(root: Path, suffix: str) -> Iterator[Path]:
    """Files ending in ``suffix`` under ``root`` in sorted order (symlinked trees followed, caches pruned)."""
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        yield from (Path(folder) / f for f in sorted(files) if f.endswith(suffix))


# rusty_hf's own source never enters the corpus: installed without -e it sits in site-packages, and its terminal
# phrasings (held-out ones included) and evaluation code would leak into the tokenizer and pretraining data.
OWN_PACKAGES = frozenset({"rusty_hf"})


def iter_files(root: SourceRoot) -> Iterator[tuple[Path, str, str]]:
    """``(path, package, license)`` for each source file under ``root``, in a fixed order (`OWN_PACKAGES` left out)."""
    owners = _distribution_owners(root.path) if root.source in ("site-packages", "pypi") else {}
    stdlib_package = f"cpython-{sys.version_info.major}.{sys.version_info.minor}"
    for path in _walk(root.path, SUFFIXES[root.language]):
        if root.source in ("site-packages", "pypi") and path.relative_to(root.path).parts[0] in OWN_PACKAGES:
            continue
        if root.source == "stdlib":
            yield path, stdlib_package, "PSF-2.0"
        elif root.source in ("site-packages", "pypi"):
            yield path, *owners.get(os.path.normpath(path), ("", ""))
        else:
            name, license_ = _crate_of(path.parent, root.path)
            fallback = f"librust-{name.replace('_', '-')}-dev" if root.source == "debian-rust" else "rust-src"
            yield path, name, license_ or debian_license(fallback)
