"""The one error path: a user's mistake is one message on stderr and exit 2; a bug keeps its traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf.errors import NoSuchPathError, UserError, debug_requested, run_cli, run_recipe, strip_debug_flag
from rusty_hf.training.arguments import RLScriptArguments

REPO = Path(__file__).resolve().parents[1]


def _fail(exc: BaseException):
    def main():
        raise exc

    return main


def test_a_user_error_is_one_stderr_message_and_exit_2(capsys):
    assert run_cli("prog", _fail(UserError("bad value x. Fix: pass y")), argv=[]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "prog: bad value x. Fix: pass y\n"


def test_debug_shows_the_traceback_of_a_user_error():
    with pytest.raises(NoSuchPathError):
        run_cli("prog", _fail(NoSuchPathError("no such folder: a")), argv=["--debug"])


def test_a_bug_is_not_hidden():
    with pytest.raises(ZeroDivisionError):
        run_cli("prog", _fail(ZeroDivisionError("a bug")), argv=[])


def test_ctrl_c_is_one_line_and_exit_130(capsys):
    assert run_cli("prog", _fail(KeyboardInterrupt()), argv=[]) == 130
    assert capsys.readouterr().err == "prog: interrupted\n"


def test_only_a_bare_debug_is_ours():
    # transformers' TrainingArguments owns `--debug <option>`; a bare --debug is the traceback switch.
    assert strip_debug_flag(["--debug", "--max_steps", "3"]) == ["--max_steps", "3"]
    assert strip_debug_flag(["--debug", "underflow_overflow"]) == ["--debug", "underflow_overflow"]
    assert debug_requested(["--x", "--debug"]) and not debug_requested(["--debug", "underflow_overflow"])


@pytest.mark.parametrize("args, named", [
    (["--reward_funcs", "execution", "nosuch"], "unknown reward function(s) ['nosuch']"),
    (["--task_languages", "cobol"], "task_languages"),
    (["--num_generations", "3", "--per_device_train_batch_size", "4"], "divisible by num_generations"),
])
def test_a_recipe_argument_refused_while_parsing_is_a_user_error(args, named, capsys, tmp_path):
    from trl import GRPOConfig

    ran = []
    parser = TrlParser((RLScriptArguments, GRPOConfig, ModelConfig))
    status = run_recipe("grpo.py", parser, lambda *parsed: ran.append(parsed),
                        ["--output_dir", str(tmp_path), "--use_cpu", "true", "--bf16", "false", *args])
    err = capsys.readouterr().err
    assert status == 2 and not ran  # nothing loaded
    assert err.startswith("grpo.py: ") and named in err and "Traceback" not in err and len(err.splitlines()) <= 2


def test_a_recipe_leaves_the_process_group_its_launch_made(tmp_path):
    """accelerate launch / torchrun start a process group; the recipe destroys it when done, so its threads do not
    abort the process at exit (exit -6 after the model was saved)."""
    from dataclasses import dataclass

    import torch.distributed as dist
    from transformers import HfArgumentParser

    @dataclass
    class Arguments:
        name: str = "tiny"

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        status = run_recipe("sft.py", HfArgumentParser((Arguments,)), lambda *parsed: None, [])
        assert status == 0 and not dist.is_initialized()
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


LAUNCHED_RANK = """
import atexit, sys
from dataclasses import dataclass
import torch.distributed as dist
from transformers import HfArgumentParser
from rusty_hf.errors import run_recipe

@dataclass
class Arguments:
    fail: bool = False

def main(args):
    print("trained", end="")  # no newline: the fast exit must still flush it
    if args.fail:
        from rusty_hf.errors import UserError
        raise UserError("bad value. Fix: a good one.")

dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
atexit.register(lambda: open(sys.argv[2], "w").write("exit handler ran"))
sys.exit(run_recipe("sft.py", HfArgumentParser((Arguments,)), main, sys.argv[3:]))
print("not reached")
"""


@pytest.mark.parametrize("flags,status", [([], 0), (["--fail", "true"], 2)])
def test_a_launched_rank_runs_its_exit_handlers_and_keeps_its_status(tmp_path, flags, status):
    """A rank of a launch (TORCHELASTIC_RUN_ID set, a gloo group up) leaves through `exit_launched_rank`: the
    recipe's status, its output flushed, its exit handlers run, the group destroyed first."""
    script = tmp_path / "rank.py"
    script.write_text(LAUNCHED_RANK)
    marker = tmp_path / "marker"
    env = {**os.environ, "TORCHELASTIC_RUN_ID": "test", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "store"), str(marker), *flags], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == status, proc.stderr[-2000:]
    assert proc.stdout == "trained" and marker.read_text() == "exit handler ran"
    assert ("sft.py: bad value. Fix: a good one." in proc.stderr) == bool(status)


HUNG_EXIT = """
import atexit, sys, time
import torch.distributed as dist
from transformers import HfArgumentParser
import rusty_hf.errors
from rusty_hf.errors import run_recipe

def handler_that_never_returns():
    time.sleep(3600)

rusty_hf.errors.EXIT_DEADLINE_S = 10.0  # collecting and destroying the group take well under that
dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
atexit.register(handler_that_never_returns)
sys.exit(run_recipe("sft.py", HfArgumentParser(()), lambda: print("trained", flush=True), []))
"""


def test_a_launched_rank_whose_exit_hangs_leaves_with_its_status_and_the_stacks(tmp_path):
    """A launched rank's exit is bounded once its work is done (`bound_the_exit`): an exit handler that never
    returns is named in the stacks printed at the deadline, and the rank leaves with the recipe's status."""
    script = tmp_path / "rank.py"
    script.write_text(HUNG_EXIT)
    env = {**os.environ, "TORCHELASTIC_RUN_ID": "test", "RANK": "0", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "store")], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "trained\n"
    assert "rank 0: its exit took over 10 s after the run was done; leaving with status 0" in proc.stderr
    assert "handler_that_never_returns" in proc.stderr


def test_an_exit_that_holds_the_interpreter_lock_still_ends_with_the_stacks():
    """Should the hang hold the GIL (a C call that keeps it), no Python timer runs: faulthandler's thread prints
    the stacks and ends the process with status 1 instead (a failed launch, not a hung one)."""
    code = ("import ctypes\nfrom rusty_hf.errors import bound_the_exit\n"
            "def held():\n    ctypes.PyDLL(None).sleep(3600)\n"
            "bound_the_exit(0, 0.5, grace_s=0.5)\nheld()\n")
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Timeout (0:00:01)!" in proc.stderr and "in held" in proc.stderr


TWO_RANKS = """
import os, sys
import torch, torch.distributed as dist
from rusty_hf.errors import leave_process_group

store, rank, status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=2)
total = torch.ones(4)
dist.all_reduce(total)
leave_process_group(status, timeout_s=3600)  # longer than the test waits: a rank that waited it out fails it
print(f"{float(total.sum())} {dist.is_initialized()}", end="", flush=True)
os._exit(0)  # as a launched rank leaves (`exit_launched_rank`): a group left alive is not torn down
"""


@pytest.mark.parametrize("statuses", [(0, 0), (0, 1)])
def test_two_ranks_leave_their_group_together_or_without_a_failed_peer(tmp_path, statuses):
    """`leave_process_group` on two gloo ranks: done ranks meet at a barrier, free the group and return; a rank
    whose peer failed (its status not 0: it skips the barrier and leaves) is told so by gloo at once (not at the end
    of its bounded wait) and returns with the group left to the launcher."""
    script = tmp_path / "rank.py"
    script.write_text(TWO_RANKS)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "store"), str(rank), str(status)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank, status in enumerate(statuses)]
    outs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err[-2000:] for _, err in outs]
    assert [out.split()[0] for out, _ in outs] == ["8.0", "8.0"]  # the group worked before it was left
    initialized = [out.split()[1] for out, _ in outs]
    if statuses == (0, 0):
        assert initialized == ["False", "False"]
    else:
        assert initialized[1] == "True"  # the failed rank left its group to the launcher's exit
        assert "leaving the process group without its peers" in outs[0][1]


def test_a_missing_config_file_names_itself(capsys, tmp_path):
    parser = TrlParser((RLScriptArguments, SFTConfig, ModelConfig))
    assert run_recipe("sft.py", parser, lambda *parsed: None, ["--config", str(tmp_path / "nope.yaml")]) == 2
    assert f"no such file: {tmp_path / 'nope.yaml'} (--config)" in capsys.readouterr().err
