"""The one error path: a user's mistake is one message on stderr and exit 2; a bug keeps its traceback."""

from __future__ import annotations

import pytest
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.errors import NoSuchPathError, UserError, debug_requested, run_cli, run_recipe, strip_debug_flag


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


def test_a_missing_config_file_names_itself(capsys, tmp_path):
    parser = TrlParser((RLScriptArguments, SFTConfig, ModelConfig))
    assert run_recipe("sft.py", parser, lambda *parsed: None, ["--config", str(tmp_path / "nope.yaml")]) == 2
    assert f"no such file: {tmp_path / 'nope.yaml'} (--config)" in capsys.readouterr().err
