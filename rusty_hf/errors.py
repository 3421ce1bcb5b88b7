"""What an entry point says on stderr: a user's mistake as one message naming the fix, and none of the
upstream notices it cannot avoid.

Errors. Validators raise a `UserError` (its message names the fix); every entry point runs its main through
`run_cli`, which prints that message as one or two lines on stderr and exits 2. Anything else is a bug
and keeps its traceback. ``--debug`` (or ``RUSTY_DEBUG=1``) shows the traceback of a user error too::

    from rusty_hf.errors import UserError, run_cli

    def main(argv=None) -> int:
        ...
        raise UserError("no such folder: outputs/tiny-grpo. Fix: run bash recipes/quickstart.sh first")

    if __name__ == "__main__":
        sys.exit(run_cli("rusty-terminal", main))

Recipes parsed by TRL's ``TrlParser`` use `run_recipe`, which also treats what fails while parsing
(a config's ``__post_init__`` check, a missing ``--config`` file) as the user's.

The subclasses keep the builtin type a caller may already catch (a missing folder is still a
`FileNotFoundError`, a corrupt checkpoint an `OSError`, a bad value a `ValueError`).

Upstream notices. `quiet_upstream_notices` silences the notices a rusty_hf entry point cannot avoid, each
by its exact message::

    from rusty_hf.errors import quiet_upstream_notices
    quiet_upstream_notices()   # a recipe: before importing TRL (peft imports bitsandbytes, which logs)
    def main(): quiet_upstream_notices(); ...   # rusty-terminal, rusty-bench, the Space: they import no peft

Only entry points call it: importing rusty_hf as a library changes no warning filter. Every filter
names one message and says why it is upstream's and unavoidable; anything else still prints.

This module imports nothing heavy: entry points import it before they parse their arguments (and
before TRL).
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import logging
import os
import sys
import threading
import warnings
from collections.abc import Callable
from datetime import timedelta
from typing import Any

logger = logging.getLogger(__name__)

EXIT_USER_ERROR = 2  # argparse's own status for a bad command line
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_DEADLINE_S = 300.0  # a launched rank's exit after its peers met: normally under a second (`bound_the_exit`)


class UserError(ValueError):
    """A mistake the user can fix; the message says what is wrong and how to fix it."""


class NoSuchPathError(UserError, FileNotFoundError):
    """A file or folder the user named does not exist."""


class CheckpointError(UserError, OSError):
    """A checkpoint folder that is incomplete, corrupt or does not fit its tokenizer."""


class SetupError(UserError, RuntimeError):
    """This machine lacks something the request needs (a GPU, a package, the network)."""


def debug_requested(argv: list[str] | None = None) -> bool:
    """True with a bare ``--debug`` (see `strip_debug_flag`) among the arguments or ``RUSTY_DEBUG`` set to 1/true/yes."""
    args = sys.argv[1:] if argv is None else argv
    return strip_debug_flag(args) != list(args) or os.environ.get("RUSTY_DEBUG", "").lower() in ("1", "true", "yes")


def report(prog: str, message: str) -> None:
    """Print ``prog: message`` on stderr (the message's own line breaks kept)."""
    sys.stdout.flush()
    print(f"{prog}: {message}", file=sys.stderr, flush=True)


def run_cli(prog: str, main: Callable[[], int | None], argv: list[str] | None = None) -> int:
    """Run ``main()``; a `UserError` becomes one message on stderr and exit status 2, Ctrl-C exit 130.

    Returns main's exit status (None counts as 0). With ``--debug`` in ``argv`` (default ``sys.argv``)
    or ``RUSTY_DEBUG=1`` a user error is re-raised with its traceback.
    """
    try:
        status = main()
    except UserError as err:
        if debug_requested(argv):
            raise
        report(prog, str(err))
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        report(prog, "interrupted")
        return EXIT_INTERRUPTED
    return int(status or 0)


def run_recipe(prog: str, parser: Any, main: Callable[..., object], argv: list[str] | None = None) -> int:
    """Parse a recipe's arguments with ``parser`` (TRL's ``TrlParser`` or transformers' ``HfArgumentParser``)
    and call ``main(*parsed)`` under `run_cli`.

    What fails while parsing is the user's: a missing ``--config`` file, YAML that is not a mapping, a
    value a config's ``__post_init__`` refuses (TRL's and ours raise ValueError). A bare ``--debug`` is
    taken out before parsing (TrainingArguments owns ``--debug <option>``). In a rank of a launch
    (``TORCHELASTIC_RUN_ID`` set) it does not return: the process ends with the status (`exit_launched_rank`).
    """
    argv = sys.argv[1:] if argv is None else list(argv)

    def parse_and_run() -> None:
        try:
            parse = getattr(parser, "parse_args_and_config", None) or parser.parse_args_into_dataclasses
            parsed = parse(args=strip_debug_flag(argv))
        except FileNotFoundError as err:
            raise NoSuchPathError(f"no such file: {err.filename} (--config). Fix: pass an existing YAML recipe.") from err
        except (ValueError, TypeError) as err:
            fix = "" if "Fix" in str(err) else "\nFix: correct that argument (command line or --config YAML)."
            raise UserError(f"{err}{fix}") from err
        main(*parsed)

    status = run_cli(prog, parse_and_run, argv)
    # a rank of `accelerate launch` / torchrun: its work is saved, so its exit is bounded once its peers are done
    launched = bool(os.environ.get("TORCHELASTIC_RUN_ID"))
    leave_process_group(status, exit_deadline_s=EXIT_DEADLINE_S if launched else None)
    if launched:
        exit_launched_rank(status)
    return status


def leave_process_group(status: int = 0, timeout_s: float = 1800.0, exit_deadline_s: float | None = None) -> None:
    """Destroy the process group a launch made (``accelerate launch``, torchrun) once the recipe is done, and free it.

    Left to interpreter exit, gloo's threads can abort a process whose work is already saved ("terminate called
    without an active exception", exit -6: a GRPO under FSDP2 and an SFT under DDP in CI runs), failing the launch.
    The trainer's DDP wrapper holds the group through reference cycles (its reducer) that only the garbage
    collector breaks, so the group's threads would live on to interpreter teardown.

    The order matters. The ranks first meet at a barrier (gloo's waits for every collective a rank has queued), so
    no work is left in flight on either side. The collector then frees the reducer while the group is still
    registered, so the reducer's reference is not the last. When it was (the group destroyed first, then
    collected), the group's destructor ran inside ``gc.collect``, where gloo's destructor waits for its worker
    threads: a rank of a saved SFT sat there, its gloo threads waiting, until the launch timed out
    (`tests/test_launch.py`, in one fresh-clone run; a py-spy dump showed the main thread in that collection).
    Destroying the group then drops the last reference from Python, and a second collection frees what is left
    (`tests/test_launch.py` checks that no gloo thread is alive at exit). A rank that failed (``status`` not 0)
    skips the barrier and leaves, which gloo reports to the ranks waiting there at once; a peer that does not
    reach it within ``timeout_s`` (gloo's default 30 minutes: rank 0 may still be pushing to the Hub) is left to the
    launcher. Either way the group is not waited on. What C++ still holds (FSDP2) is left to `exit_launched_rank`.

    With ``exit_deadline_s`` (a launched rank, which leaves the process right after) the rest of the process's
    life is bounded from the moment the peers met or one failed: `bound_the_exit`."""
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available():
        return
    if dist.is_initialized():
        met = dist.get_world_size() == 1 or _peers_meet(dist, status, timeout_s)
        if exit_deadline_s is not None:
            bound_the_exit(status, exit_deadline_s)
        if not met:
            return
        gc.collect()
        dist.destroy_process_group()
    gc.collect()


def bound_the_exit(status: int, seconds: float = EXIT_DEADLINE_S, grace_s: float = 30.0) -> None:
    """Make sure this process ends within ``seconds``, with ``status``: a rank whose work is saved never hangs.

    What is left of a launched rank's life once its peers are done (collecting, destroying the group, the exit
    handlers) takes well under a second. Twice a saved DDP SFT rank sat in it until `tests/test_launch.py` gave up
    after 600 s (a fresh-clone run, in ``gc.collect``; CI run 69, where no stack was taken): the launch never ended.
    Past the deadline a timer thread prints every thread's stack on stderr (what hung, for a report) and leaves with
    the recipe's status. Should the hang hold the interpreter lock, so that no Python thread runs,
    faulthandler's own thread prints the stacks ``grace_s`` later and exits 1: the launch fails instead of hanging."""

    def leave() -> None:
        sys.stderr.write(f"rank {os.environ.get('RANK', '?')}: its exit took over {seconds:g} s after the run was done; "
                         f"leaving with status {status}. The stacks of its threads, for a bug report:\n")
        sys.stderr.flush()
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        os._exit(status)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True
    timer.start()
    faulthandler.dump_traceback_later(seconds + grace_s, exit=True)


def _peers_meet(dist: Any, status: int, timeout_s: float) -> bool:
    """Whether every rank reached this point with its collectives done (a barrier with a bounded wait)."""
    if status != 0:
        return False
    try:
        return bool(dist.barrier(async_op=True).wait(timeout=timedelta(seconds=timeout_s)))
    except Exception as err:  # a peer that failed or left: gloo reports it here, or the wait times out
        logger.warning("leaving the process group without its peers (%s); the launcher ends the run", err)
        return False


def exit_launched_rank(status: int) -> None:
    """End a launched rank: its exit handlers run, then it leaves without the interpreter's teardown.

    FSDP2's DTensors keep their process group alive from C++ (no Python object refers to it once the recipe has
    destroyed the group and collected), so gloo's threads would still be running when teardown destroys it: the
    race behind "terminate called without an active exception" (exit -6) after a saved run. Every ``atexit``
    handler still runs (trackers, logging, temporary folders, `tests/test_launch.py`'s exit hook), on whole
    stdout and stderr. `run_recipe` has left the process group already (`leave_process_group`)."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def strip_debug_flag(argv: list[str]) -> list[str]:
    """``argv`` without a bare ``--debug`` (one not followed by a value), for parsers that reserve the
    name: transformers' TrainingArguments has ``--debug <option>``, so only the bare flag is ours."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--debug" and (i + 1 == len(argv) or argv[i + 1].startswith("-")):
            i += 1
            continue
        out.append(argv[i])
        i += 1
    return out


# ---- upstream notices ------------------------------------------------------------------------

# transformers 5.23 deprecated the `gradient_checkpointing*` names for `activation_checkpointing*`,
# and TRL 1.16 still calls the old ones on the model at every generation (trl.models.utils:
# `unwrap_model_for_generation`, `disable_gradient_checkpointing`). Our own code uses the new names.
_TRL_OLD_CHECKPOINTING_CALLS = (
    r"`gradient_checkpointing_enable` is deprecated",
    r"`gradient_checkpointing_disable` is deprecated",
    r"`is_gradient_checkpointing` is deprecated",
)

# TRL marks `environment_factory` experimental on every trainer built with it; the multi-turn GRPO
# recipe (`environment: coding`) uses it on purpose, and its README says the API is TRL's.
_TRL_EXPERIMENTAL_ENVIRONMENT = r"You are using '(environment_factory|rollout_func)', which is an experimental feature"

# bitsandbytes >= 0.50 on CPUs with AVX-512 BF16 tries to fetch a faster 4-bit GEMM from the Hub
# (`kernels-community/quantization-bitsandbytes`) when it is imported, and logs a warning when the
# optional `kernels` package is missing. Installing it would download code at run time (offline here,
# and a supply-chain hop we do not want by default); bitsandbytes' own CPU kernel is used instead.
_BNB_LOGGER = "bitsandbytes.backends.cpu.ops"
_BNB_KERNELS_NOTICE = "Failed to load CPU gemm_4bit_forward from kernels-community"


class _DropMessage(logging.Filter):
    """Drop log records whose unformatted message starts with `prefix`."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefix)


def quiet_upstream_notices() -> None:
    """Install the filters above (idempotent). Call before the noisy packages are imported."""
    for message in _TRL_OLD_CHECKPOINTING_CALLS:
        warnings.filterwarnings("ignore", message=message, category=FutureWarning)
    warnings.filterwarnings("ignore", message=_TRL_EXPERIMENTAL_ENVIRONMENT, category=UserWarning)
    bnb_logger = logging.getLogger(_BNB_LOGGER)
    if not any(isinstance(f, _DropMessage) for f in bnb_logger.filters):
        bnb_logger.addFilter(_DropMessage(_BNB_KERNELS_NOTICE))


__all__ = [
    "CheckpointError",
    "EXIT_USER_ERROR",
    "NoSuchPathError",
    "SetupError",
    "UserError",
    "debug_requested",
    "quiet_upstream_notices",
    "report",
    "run_cli",
    "run_recipe",
    "strip_debug_flag",
]
