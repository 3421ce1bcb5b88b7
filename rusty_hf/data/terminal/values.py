"""Argument values for terminal requests: names built from word pools, split into train and held-out.

A request names files, folders, functions, words and numbers; the model must copy them from the
request into its action. Values are built from small word pools in thousands of combinations, so
none is seen often enough to be memorised, and each value belongs to one split for good:

- a pool word is held out when a SHA-256 of it falls in the lowest ``HELD_OUT_PERCENT`` (stable:
  adding words never moves another), or when it is in ``HELD_OUT_WORDS``;
- a value is held out when any of its words is: a held-out word never occurs in a training value.

    from rusty_hf.data.terminal.values import ValuePool
    pool = ValuePool("train", seed=0)
    pool.module(), pool.function(), pool.word()     # 'ledger', 'merge_rows', 'amber'
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Callable

SPLITS = ("train", "test")
HELD_OUT_PERCENT = 20

NOUNS = (
    "account", "anchor", "archive", "asset", "audit", "badge", "basket", "batch", "beacon", "bill",
    "block", "board", "bridge", "budget", "buffer", "bundle", "cable", "cache", "camera", "canvas",
    "card", "cargo", "cart", "catalog", "cell", "chain", "channel", "chart", "cipher", "city",
    "client", "clock", "cluster", "column", "comment", "config", "contact", "cookie", "counter", "coupon",
    "crate", "credit", "cursor", "customer", "dataset", "deck", "device", "digest", "domain", "draft",
    "engine", "entry", "event", "farm", "feed", "field", "filter", "flag", "fleet", "folder",
    "format", "frame", "garden", "gate", "graph", "grid", "group", "harbor", "header", "image",
    "index", "invoice", "item", "job", "journal", "kernel", "key", "label", "layer", "ledger",
    "level", "library", "limit", "link", "list", "loader", "lock", "log", "map", "market",
    "matrix", "member", "menu", "message", "meter", "metric", "model", "module", "monitor", "node",
    "note", "order", "packet", "page", "panel", "parcel", "parser", "patch", "path", "payment",
    "peer", "pixel", "planet", "player", "point", "policy", "pool", "port", "post", "price",
    "printer", "profile", "queue", "quota", "range", "rate", "reader", "record", "region", "report",
    "request", "route", "row", "rule", "sample", "schema", "score", "screen", "sensor", "server",
    "session", "shape", "sheet", "signal", "slot", "socket", "source", "stack", "station", "store",
    "stream", "table", "tag", "task", "ticket", "timer", "token", "topic", "track", "trade",
    "tree", "user", "vault", "vector", "vendor", "video", "voucher", "wallet", "widget", "worker",
    "acorn", "album", "alloy", "anvil", "apron", "arbor", "arch", "arena", "arrow", "atlas",
    "attic", "avenue", "axle", "bacon", "badger", "bagel", "bakery", "ballot", "bamboo", "banner",
    "barley", "barn", "barrel", "basin", "beagle", "beaver", "bench", "berry", "bison", "blade",
    "blanket", "blossom", "bobbin", "bolt", "bonnet", "border", "bottle", "boulder", "bow", "bracket",
    "branch", "brick", "brook", "broom", "bubble", "bucket", "bulb", "bunker", "burrow", "butter",
    "button", "cabin", "cactus", "canal", "candle", "canoe", "canyon", "cape", "carbon", "carpet",
    "castle", "cedar", "cellar", "chalk", "chapel", "cherry", "chimney", "cider", "cinder", "circus",
    "cliff", "cloak", "clover", "coach", "cobalt", "cocoa", "comet", "compass", "copper", "cotton",
    "cradle", "crane", "crater", "crayon", "creek", "cricket", "crown", "crystal", "cup", "curtain",
    "cushion", "dagger", "daisy", "dam", "delta", "desert", "dial", "diamond", "dolphin", "dome",
    "donkey", "dove", "dragon", "drum", "dune", "eagle", "easel", "echo", "elbow", "ember",
    "emerald", "falcon", "fence", "fern", "ferry", "fiddle", "fig", "flask", "fleece", "flint",
    "flute", "forest", "fossil", "fountain", "fox", "furnace", "galaxy", "garnet", "geyser", "ginger",
    "glacier", "glove", "goblet", "goose", "granite", "grape", "gravel", "guitar", "gull", "hammer",
    "harp", "hatch", "hazel", "hedge", "helmet", "heron", "hill", "hive", "honey", "hook",
    "horizon", "horn", "hut", "igloo", "inlet", "iris", "island", "ivy", "jacket", "jar",
    "jasmine", "jelly", "jetty", "jewel", "kayak", "kettle", "kite", "knot", "ladder", "lagoon",
    "lake", "lamp", "lantern", "lark", "lava", "lemon", "lens", "lily", "lime", "linen",
    "lion", "lizard", "llama", "lobster", "locket", "loom", "lotus", "lumber", "lynx", "magnet",
    "mango", "maple", "marble", "marsh", "mast", "meadow", "melon", "mesa", "mill", "mint",
    "mirror", "mitten", "moat", "moose", "mortar", "moss", "moth", "mountain", "mug", "mule",
    "nectar", "needle", "nest", "nickel", "noodle", "oak", "oasis", "ocean", "onyx", "orbit",
    "orchard", "otter", "owl", "oyster", "paddle", "pagoda", "palm", "pantry", "parrot", "pasta",
    "peach", "pearl", "pebble", "pelican", "pencil", "pepper", "pier", "pigeon", "pillar", "pillow",
    "pine", "pirate", "pistachio", "plank", "plum", "pond", "poppy", "porch", "potato", "prairie",
    "prism", "pumpkin", "puppet", "quail", "quartz", "quill", "rabbit", "radish", "raft", "rainbow",
    "raven", "reef", "ribbon", "ridge", "river", "robin", "rocket", "rope", "rose", "ruby",
    "saddle", "sail", "salmon", "sapphire", "scarf", "scroll", "seal", "shadow", "shark", "shell",
    "shield", "shovel", "silk", "sleet", "slope", "snail", "sparrow", "spear", "spider", "spindle",
    "sponge", "spruce", "squid", "stable", "stamp", "star", "steeple", "stone", "stove", "straw",
    "summit", "swan", "sword", "tablet", "tangerine", "teapot", "temple", "tent", "thistle", "thorn",
    "thunder", "tiger", "timber", "toad", "torch", "tower", "trail", "trout", "tulip", "tundra",
    "turtle", "umbrella", "valley", "velvet", "violin", "volcano", "wagon", "walnut", "walrus", "wand",
    "wave", "weasel", "whale", "wheat", "whistle", "willow", "window", "wolf", "wren", "yacht",
    "yarn", "zebra", "zinc",
)
VERBS = (
    "add", "apply", "build", "check", "clean", "clear", "close", "collect", "compute", "convert",
    "count", "create", "decode", "delete", "draw", "dump", "encode", "export", "fetch", "filter",
    "find", "flush", "format", "group", "hash", "import", "index", "init", "load", "lookup",
    "make", "merge", "move", "normalize", "open", "pack", "parse", "patch", "print", "push",
    "read", "render", "reset", "resolve", "rotate", "route", "save", "scale", "scan", "send",
    "sort", "split", "start", "stop", "store", "sum", "sync", "trim", "update", "validate",
    "align", "archive", "assemble", "attach", "balance", "bind", "blend", "boost", "capture", "carve",
    "cast", "chop", "compress", "connect", "copy", "crop", "decrypt", "deploy", "detach", "dispatch",
    "divide", "drain", "emit", "enrich", "erase", "extract", "fold", "freeze", "gather", "graft",
    "harvest", "ignite", "inspect", "join", "launch", "measure", "mount", "mutate", "notify", "pause",
    "pin", "plot", "poll", "prune", "publish", "query", "rank", "rebuild", "refresh", "register",
    "reload", "rename", "repair", "replay", "restore", "retry", "reverse", "select", "shuffle", "sign",
    "skip", "slice", "snap", "spawn", "stitch", "strip", "submit", "swap", "tally", "trace",
    "trigger", "tune", "unpack", "verify", "weave", "wrap",
)
ADJECTIVES = (
    "amber", "blue", "brisk", "calm", "coral", "crisp", "dusty", "early", "fast", "gentle",
    "golden", "green", "hollow", "ivory", "jolly", "keen", "late", "lucky", "mellow", "misty",
    "noble", "olive", "pale", "plain", "quiet", "rapid", "rusty", "sandy", "scarlet", "silent",
    "silver", "slow", "smooth", "solid", "spare", "steady", "sunny", "swift", "tidy", "vivid",
    "agile", "ancient", "arctic", "autumn", "bold", "bright", "broad", "bronze", "busy", "clever",
    "cosmic", "cozy", "crimson", "curly", "daring", "deep", "dense", "eager", "electric", "elegant",
    "fancy", "fierce", "fluffy", "frosty", "fuzzy", "giant", "glossy", "graceful", "grand", "happy",
    "hasty", "heavy", "humble", "icy", "indigo", "jade", "kind", "lavender", "lively", "lofty",
    "loyal", "lunar", "magic", "maroon", "merry", "mighty", "modest", "muddy", "narrow", "neat",
    "nimble", "nocturnal", "orange", "patient", "peppy", "polar", "proud", "purple", "quick", "radiant",
    "rosy", "royal", "rugged", "rustic", "scenic", "shiny", "sleek", "snowy", "soft", "sparkly",
    "spicy", "stormy", "sturdy", "sweet", "tame", "tawny", "teal", "tender", "tiny", "topaz",
    "tranquil", "tropical", "velvety", "vintage", "violet", "wavy", "windy", "wise", "witty", "woolly",
    "young", "zesty",
)
_STATES = ("ready", "done", "ok", "up", "set")


def _capitalised(text: str, r: random.Random) -> str:
    return text[:1].upper() + text[1:] if r.random() < 0.25 else text


# The shapes of `ValuePool.line` (the first is `ValuePool.phrase`'s): pool words, with the few small words a note
# or a to-do holds
_LINE_SHAPES: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"{r.choice(ADJECTIVES)} {r.choice(NOUNS)} {r.choice(_STATES)}",
    lambda r: _capitalised(f"{r.choice(VERBS)} the {r.choice(NOUNS)}", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} {r.choice(NOUNS)}s", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} the {r.choice(ADJECTIVES)} {r.choice(NOUNS)}", r),
    lambda r: _capitalised(f"{r.choice(ADJECTIVES)} {r.choice(NOUNS)}", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} {r.choice(NUMBERS)} {r.choice(NOUNS)}s", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} my {r.choice(NOUNS)} at {r.choice(NUMBERS)}", r),
    lambda r: _capitalised(f"{r.choice(NOUNS)} and {r.choice(NOUNS)}", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} the {r.choice(NOUNS)} for {r.choice(NOUNS)}", r),
    lambda r: _capitalised(f"{r.choice(VERBS)} a {r.choice(NOUNS)}", r),
    lambda r: f"{r.choice(NOUNS)} is {r.choice(ADJECTIVES)}",
    lambda r: r.choice(NOUNS),
)

# Never in training data: values made with them are held out whatever their hash.
HELD_OUT_WORDS = frozenset({"harbor", "planet", "voucher", "vivid", "rotate", "beacon", "olive", "quota"})
NUMBERS = (2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20)


def words_of(value: str) -> list[str]:
    """The words a value is made of: 'scripts/mergeRows.py' -> ['scripts', 'merge', 'rows', 'py']."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", value)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


# Pool words that phrasings, answers, fixture texts or the coding tasks also use ("list the files in
# this folder", hanoi's `source` peg, "a tiny terminal assistant", git cherry-pick and branch): they
# occur in training text whatever the split, so they are never held out. The leak guard
# (tests/test_terminal_data.py) fails when a held-out word shows up in any terminal training text, or
# when a held-out noun or adjective (a value on its own) shows up as a word in any training text.
SHARED_WORDS = frozenset({"config", "folder", "lock", "message", "module", "pool", "tree", "build", "make", "split",
                          "chain", "header", "limit", "parser", "patch", "server", "source", "task", "tiny", "cherry", "branch"})
_NOUN_SET = frozenset(NOUNS)
POOL_WORDS = frozenset(NOUNS) | frozenset(VERBS) | frozenset(ADJECTIVES)


def pool_word(word: str) -> str | None:
    """``word`` as the pool word it is (a plural as its noun), or None when it is not one."""
    if word.endswith("s") and word[:-1] in _NOUN_SET:
        return word[:-1]
    return word if word in POOL_WORDS else None


@functools.cache  # pure, over a few hundred words: the SFT data asks ~1.4M times
def word_split(word: str) -> str:
    """The split of one pool word: ``HELD_OUT_WORDS``, else a SHA-256 of it (fixed words never decide)."""
    if word in HELD_OUT_WORDS:
        return "test"
    if word in SHARED_WORDS:
        return "train"
    return "test" if int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % 100 < HELD_OUT_PERCENT else "train"


@functools.lru_cache(maxsize=1 << 16)  # pure; drawn values repeat
def value_split(value: str) -> str:
    """A value is held out when any of its pool words is: a held-out word never occurs in training values.

    Words outside the pools (``README``, ``notes``, ``tests``, extensions, ``ready``/``done``) are the
    same in every fixture and do not count.
    """
    words = [w for w in map(pool_word, words_of(value)) if w is not None]
    return "test" if any(word_split(w) == "test" for w in words) else "train"


def is_new_value(value: str) -> bool:
    """Whether ``value`` (a name, path or phrase) holds a word of the held-out split."""
    return value_split(value) == "test"


def _verb_noun(r: random.Random) -> str:
    """A function's name, or a script's stem: 'merge_rows'."""
    return f"{r.choice(VERBS)}_{r.choice(NOUNS)}{r.choice(['', 's'])}"


class ValuePool:
    """Draws values of one split: each draw retries until the value belongs to ``split``.

    Args:
        split: "train" or "test".
        seed: seeds the draws (the same seed gives the same values).
        rng: or a ``random.Random`` to share with the caller.
    """

    def __init__(self, split: str, seed: int = 0, rng: random.Random | None = None) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        self.split = split
        self.rng = rng if rng is not None else random.Random(seed)

    def _draw(self, make: Callable[[random.Random], str]) -> str:
        for _ in range(1000):
            value = make(self.rng)
            if value_split(value) == self.split:
                return value
        raise RuntimeError(f"no {self.split} value after 1000 draws: the word pools are too small")

    def word(self) -> str:
        return self._draw(lambda r: r.choice(ADJECTIVES))

    def noun(self) -> str:
        return self._draw(lambda r: r.choice(NOUNS))

    def module(self) -> str:
        """A module or file stem: 'ledger', 'cache_store'."""
        return self._draw(lambda r: r.choice(NOUNS) if r.random() < 0.4 else f"{r.choice(NOUNS)}_{r.choice(NOUNS)}")

    def function(self) -> str:
        return self._draw(_verb_noun)

    def script(self) -> str:
        """A script's stem in the shapes people name them: 'merge_rows', 'report', 'deploy', 'cache_store'
        (a stem always shaped 'verb_noun' taught `python3 ` + a remembered 'verb_noun.py' for 'run app.py')."""
        shapes = (_verb_noun, lambda r: r.choice(NOUNS), lambda r: r.choice(VERBS), lambda r: f"{r.choice(NOUNS)}_{r.choice(NOUNS)}")
        return self._draw(lambda r: r.choices(shapes, weights=(5, 2, 2, 1))[0](r))

    def class_name(self) -> str:
        return self._draw(lambda r: f"{r.choice(NOUNS).title()}{r.choice(NOUNS).title()}")

    def folder(self) -> str:
        return self._draw(lambda r: r.choice([r.choice(NOUNS), f"{r.choice(ADJECTIVES)}_{r.choice(NOUNS)}"]))

    def phrase(self) -> str:
        """A short line of text: 'swift ledger ready'."""
        return self._draw(_LINE_SHAPES[0])

    def line(self) -> str:
        """A line a user asks to write into a file, in one of the shapes people type ('swift ledger ready',
        'fetch the lantern', 'Pack 3 crates', 'sunny garden'): a fixed shape taught the model that a line to append
        ends in 'ready' or 'done', and 'buy eggs' became a `sed`."""
        return self._draw(lambda r: r.choice(_LINE_SHAPES)(r))

    def number(self) -> int:
        return self.rng.choice(NUMBERS)

    def distinct(self, make: Callable[[], str], n: int, avoid: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """``n`` different values from ``make``, none in ``avoid``."""
        seen: list[str] = []
        for _ in range(200 * n):
            value = make()
            if value not in seen and value not in avoid:
                seen.append(value)
                if len(seen) == n:
                    return seen
        raise RuntimeError(f"could not draw {n} distinct values")
