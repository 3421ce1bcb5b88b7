"""Duplicate and leak detection for the code corpus: exact hashes, MinHash + LSH, held-out guards.

    from rusty_hf.data.dedup import LeakGuard, NearDupIndex, content_hash, shingle_hashes

    index = NearDupIndex()                          # Jaccard >= 0.8 over 5-token shingles is a near duplicate
    keep = index.add_if_new(shingle_hashes(text))   # False: a near copy of a file added before
    keep = index.add_signature_if_new(index.hasher.signature(shingles))  # the same, signed elsewhere
    guard = LeakGuard({"python/stack/solution.py": solution_text})
    guard.leak(text)                                # the held-out file name ``text`` copies, or None

Only the standard library and numpy. Everything is deterministic: token hashes are BLAKE2b (never
Python's per-process ``hash``) and the MinHash permutations come from a fixed seed, so the same files
in the same order give the same verdicts on every machine.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

import numpy as np

SHINGLE = 5
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SPACE = re.compile(r"\s+")
_MASK32 = np.uint64(32)


def normalise(text: str) -> str:
    """Text with unified newlines, no trailing spaces and no leading/trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: files that differ only in whitespace at line ends hash alike."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


class _TokenHashes:
    """Token -> 64-bit BLAKE2b, cached because code repeats the same identifiers endlessly."""

    def __init__(self, max_cached: int = 2_000_000) -> None:
        self._cache: dict[str, int] = {}
        self._max = max_cached

    def __call__(self, tokens: list[str]) -> np.ndarray:
        cache = self._cache
        if len(cache) > self._max:  # rare long identifiers / numbers: bound the memory, keep determinism
            cache.clear()
        out = np.empty(len(tokens), dtype=np.uint64)
        for i, token in enumerate(tokens):
            value = cache.get(token)
            if value is None:
                digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
                value = cache[token] = int.from_bytes(digest, "little")
            out[i] = value
        return out


_token_hashes = _TokenHashes()
# Odd 64-bit multipliers: one per position in a shingle, so "a b" and "b a" hash differently.
_POSITION = np.random.default_rng(12345).integers(1, 2**63, size=SHINGLE, dtype=np.uint64) * 2 + 1


def shingle_hashes(text: str, k: int = SHINGLE) -> np.ndarray:
    """Sorted unique 64-bit hashes of the ``k``-token shingles of ``text`` (one shingle if shorter)."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return np.empty(0, dtype=np.uint64)
    hashes = _token_hashes(tokens)
    n = max(1, len(hashes) - k + 1)
    combined = np.zeros(n, dtype=np.uint64)
    for j in range(min(k, len(hashes))):  # uint64 arithmetic wraps, which is what a hash wants
        combined += hashes[j : j + n] * _POSITION[j]
    return np.unique(combined)


class MinHasher:
    """MinHash signatures by multiply-add-shift hashing: ``num_perm`` uint32 minima per document."""

    def __init__(self, num_perm: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.a = rng.integers(1, 2**63, size=num_perm, dtype=np.uint64) * 2 + 1
        self.b = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)
        self.num_perm = num_perm

    def signature(self, shingles: np.ndarray, chunk: int = 16_384) -> np.ndarray:
        sig = np.full(self.num_perm, np.iinfo(np.uint32).max, dtype=np.uint32)
        for start in range(0, len(shingles), chunk):  # chunks bound the (shingles x perms) temporary
            block = shingles[start : start + chunk, None] * self.a + self.b
            sig = np.minimum(sig, (block >> _MASK32).min(axis=0).astype(np.uint32))
        return sig


class NearDupIndex:
    """Keeps documents in arrival order; a document is new unless its MinHash Jaccard with a kept one
    reaches ``threshold``. LSH (``bands`` x ``num_perm / bands`` rows) finds the candidates; each is then
    checked on the whole signature, so a band collision alone never drops a file."""

    def __init__(self, threshold: float = 0.8, num_perm: int = 64, bands: int = 8, seed: int = 0) -> None:
        if num_perm % bands:
            raise ValueError(f"num_perm ({num_perm}) must be a multiple of bands ({bands})")
        self.threshold = threshold
        self.hasher = MinHasher(num_perm, seed)
        self.rows = num_perm // bands
        self._buckets: list[dict[bytes, list[int]]] = [{} for _ in range(bands)]
        self._signatures: list[np.ndarray] = []

    def _bands(self, sig: np.ndarray) -> Iterable[tuple[int, bytes]]:
        for band in range(len(self._buckets)):
            yield band, sig[band * self.rows : (band + 1) * self.rows].tobytes()

    def add_if_new(self, shingles: np.ndarray) -> bool:
        """Add the document unless it is a near duplicate of one already added; True when added."""
        return not len(shingles) or self.add_signature_if_new(self.hasher.signature(shingles))

    def add_signature_if_new(self, sig: np.ndarray) -> bool:
        """`add_if_new` for a signature already computed with ``self.hasher`` (say, in a worker process
        holding a copy of it), so only the signature, not the shingles, has to reach the index."""
        candidates = {i for band, key in self._bands(sig) for i in self._buckets[band].get(key, ())}
        for i in sorted(candidates):
            if np.mean(self._signatures[i] == sig) >= self.threshold:
                return False
        doc = len(self._signatures)
        self._signatures.append(sig)
        for band, key in self._bands(sig):
            self._buckets[band].setdefault(key, []).append(doc)
        return True


def content_lines(text: str) -> list[str]:
    """Non-blank lines with all runs of whitespace collapsed: indentation and spacing edits do not hide a copy."""
    return [line for line in (_SPACE.sub(" ", raw).strip() for raw in text.splitlines()) if line]


class LeakGuard:
    """Flags text that copies a held-out file: ``window`` consecutive normalised non-blank lines of it
    verbatim, or ``containment`` of its shingles (a near-copy, or the file pasted inside a larger one).

    Windows with fewer than ``min_window_chars`` word characters (runs of ``}`` or ``pass``) are ignored,
    and so is containment for files under ``min_shingles`` shingles: too little to tell a copy from chance.
    """

    def __init__(self, files: Mapping[str, str], window: int = 8, containment: float = 0.5,
                 min_shingles: int = 20, min_window_chars: int = 40) -> None:
        self.window, self.containment = window, containment
        self._windows: dict[tuple[str, ...], str] = {}
        names, hashes, owners = [], [], []
        for name, text in sorted(files.items()):
            lines = content_lines(text)
            for i in range(len(lines) - window + 1):
                span = tuple(lines[i : i + window])
                if sum(ch.isalnum() for ch in "".join(span)) >= min_window_chars:
                    self._windows.setdefault(span, name)
            shingles = shingle_hashes(text)
            if len(shingles) >= min_shingles:
                owners.append(np.full(len(shingles), len(names)))
                hashes.append(shingles)
                names.append(name)
        self._names = names
        self._hashes = np.concatenate(hashes) if hashes else np.empty(0, dtype=np.uint64)
        self._owners = np.concatenate(owners) if owners else np.empty(0, dtype=np.int64)
        self._sizes = np.bincount(self._owners, minlength=len(names))

    def leak(self, text: str, shingles: np.ndarray | None = None) -> str | None:
        """The name of a held-out file ``text`` copies, or None. Pass ``shingles`` if already computed."""
        if self._windows:
            lines = content_lines(text)
            for i in range(len(lines) - self.window + 1):
                name = self._windows.get(tuple(lines[i : i + self.window]))
                if name is not None:
                    return name
        if len(self._hashes):
            shingles = shingle_hashes(text) if shingles is None else shingles
            # ``shingles`` is sorted and unique (shingle_hashes), so a binary search finds each held-out hash.
            at = np.minimum(np.searchsorted(shingles, self._hashes), max(0, len(shingles) - 1))
            found = shingles[at] == self._hashes if len(shingles) else np.zeros(len(self._hashes), dtype=bool)
            hits = np.bincount(self._owners[found], minlength=len(self._names))
            best = int(np.argmax(hits / self._sizes))
            if hits[best] >= self.containment * self._sizes[best]:
                return self._names[best]
        return None
