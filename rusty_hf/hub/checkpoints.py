"""What a model argument names, checked before anything loads: a local folder, or a Hub id.

    from rusty_hf.hub.checkpoints import check_model_source
    name = check_model_source(args.model)     # raises a UserError naming the fix, or returns the name

A name that looks like a path (it starts with ``/``, ``./``, ``../`` or ``~``, has more than one ``/``,
or starts with a folder that exists here or with ``outputs/``, ``data/`` or ``checkpoints/``) is a
path: a missing one fails at once with "no such folder", without a Hub lookup. An existing folder must
hold a ``config.json`` that parses and complete weights (every safetensors file as long as its header
says; a truncated copy is named, with the fix). Anything else is a Hub id ("namespace/name"): with
``HF_HUB_OFFLINE=1`` it must already be in the Hub cache; online, one request without retries checks
that the Hub answers and knows the repo, so an unreachable Hub fails in seconds instead of after a
minute of retries.
"""

from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path

from rusty_hf.errors import CheckpointError, NoSuchPathError, SetupError, UserError

# First components that mean "a folder of this project", even before it exists (the README's commands).
LOCAL_ROOTS = ("outputs", "data", "checkpoints")
_HUB_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*$")  # [namespace/]name
HUB_PROBE_TIMEOUT_S = 10.0
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")


def looks_like_path(name: str | os.PathLike) -> bool:
    """True when ``name`` must be a local path rather than a Hub id (see the module docstring)."""
    text = os.fspath(name)
    if isinstance(name, os.PathLike) or text.startswith(("/", "./", "../", "~")) or text in (".", ".."):
        return True
    if "\\" in text or text.count("/") > 1 or not _HUB_ID.match(text):
        return True
    first = text.split("/", 1)[0]
    return "/" in text and (first in LOCAL_ROOTS or Path(first).is_dir()) or Path(text).is_dir()


def check_model_source(name: str | os.PathLike, *, revision: str | None = None, what: str = "model") -> str:
    """``name`` checked as a model folder or a Hub id (see the module docstring); returns the name to load.

    A path comes back with ``~`` expanded. Raises `NoSuchPathError`, `CheckpointError` or `SetupError`.
    """
    if looks_like_path(name):
        folder = Path(os.fspath(name)).expanduser()
        if not folder.is_dir():
            raise NoSuchPathError(
                f"no such folder: {os.fspath(name)}. Fix: pass a folder written by save_pretrained (bash "
                "recipes/quickstart.sh writes outputs/tiny-grpo) or a Hub id (namespace/name)."
            )
        check_model_folder(folder, what=what)
        return str(folder)
    check_hub_model(os.fspath(name), revision=revision)
    return os.fspath(name)


def check_model_folder(folder: str | os.PathLike, *, what: str = "model") -> None:
    """Raise a `CheckpointError` unless ``folder`` holds a readable config.json and complete weights."""
    folder = Path(folder)
    config = folder / "config.json"
    if not config.is_file():
        raise CheckpointError(
            f"{folder} is not a saved {what} folder (no config.json). Fix: pass the folder written by save_pretrained."
        )
    try:
        json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise CheckpointError(f"{config} is not valid JSON ({err}). Fix: re-save the model or copy the folder again.") from None
    weights = [folder / name for name in WEIGHT_FILES if (folder / name).is_file()]
    if not weights:
        raise CheckpointError(
            f"{folder} has no weights ({' or '.join(WEIGHT_FILES[::2])}). Fix: the save was interrupted; "
            "re-save the model or copy the folder again."
        )
    for path in _safetensors_files(weights[0]):
        check_safetensors(path)


def _safetensors_files(first: Path) -> list[Path]:
    if first.name == "model.safetensors":
        return [first]
    if first.name != "model.safetensors.index.json":
        return []  # a pickled .bin: torch reads it, and its own error names the file
    try:
        shards = sorted(set(json.loads(first.read_text(encoding="utf-8"))["weight_map"].values()))
    except (OSError, ValueError, KeyError, AttributeError) as err:
        raise CheckpointError(f"{first} is unreadable ({err}). Fix: re-save the model or copy the folder again.") from None
    missing = [s for s in shards if not (first.parent / s).is_file()]
    if missing:
        raise CheckpointError(f"{first.parent} lacks weight shards {missing[:3]}. Fix: copy the whole folder again.")
    return [first.parent / s for s in shards]


def check_safetensors(path: str | os.PathLike) -> None:
    """Raise a `CheckpointError` when a safetensors file is shorter than its header says (a cut-off copy)."""
    path = Path(path)
    size = path.stat().st_size
    fix = "Fix: re-save the model (save_pretrained) or copy the folder again."
    try:
        with open(path, "rb") as f:
            (header_len,) = struct.unpack("<Q", f.read(8))
            if 8 + header_len > size:
                raise ValueError(f"header of {header_len} bytes, file of {size}")
            header = json.loads(f.read(header_len))
        end = max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
    except (struct.error, ValueError, KeyError, TypeError, AttributeError, IndexError) as err:
        raise CheckpointError(f"{path} is truncated or not a safetensors file ({err}). {fix}") from None
    if 8 + header_len + end > size:
        raise CheckpointError(f"{path} is truncated: {size} bytes, its header needs {8 + header_len + end}. {fix}")


def check_hub_model(repo_id: str, *, revision: str | None = None) -> None:
    """Raise a `UserError` unless ``repo_id`` can be loaded: cached when offline, else known to the Hub."""
    from huggingface_hub import constants, try_to_load_from_cache
    from huggingface_hub.errors import HFValidationError

    try:
        cached = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except HFValidationError as err:
        raise NoSuchPathError(f"{repo_id} is neither a folder here nor a valid Hub id ({err}). Fix: pass a saved folder.") from None
    if isinstance(cached, str):
        return
    if constants.is_offline_mode():
        raise NoSuchPathError(
            f"{repo_id} is neither a folder here nor in the Hub cache, and HF_HUB_OFFLINE is set. Fix: pass a "
            "folder written by save_pretrained, or unset HF_HUB_OFFLINE to download it."
        )
    _probe_hub(repo_id, revision)


def _probe_hub(repo_id: str, revision: str | None) -> None:
    """One HEAD request for config.json, without retries: a Hub that does not answer fails now."""
    import httpx2
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError

    url = hf_hub_url(repo_id, "config.json", revision=revision)
    try:
        get_hf_file_metadata(url, timeout=HUB_PROBE_TIMEOUT_S, retry_on_errors=False)
    except GatedRepoError:
        raise UserError(f"{repo_id} is gated on the Hub. Fix: accept its terms on the Hub, then `hf auth login`.") from None
    except RepositoryNotFoundError:
        raise NoSuchPathError(
            f"no model {repo_id} on the Hub (or it is private), and no such folder here. Fix: pass an existing folder "
            "or Hub id (bash recipes/quickstart.sh writes outputs/tiny-grpo); for a private repo, `hf auth login`."
        ) from None
    except (httpx2.TransportError, OfflineModeIsEnabled) as err:
        raise SetupError(
            f"cannot reach the Hub at {url.split('/' + repo_id)[0]} to fetch {repo_id} ({type(err).__name__}). "
            "Fix: check the network, or pass a local folder (HF_HUB_OFFLINE=1 uses only the cache)."
        ) from None
    except HfHubHTTPError as err:
        raise SetupError(f"the Hub refused {repo_id}/config.json ({err.response.status_code}). Fix: check the "
                         "name and revision, or pass a local folder.") from None


__all__ = ["LOCAL_ROOTS", "check_hub_model", "check_model_folder", "check_model_source", "check_safetensors", "looks_like_path"]
