"""Recipes under `accelerate launch` on 2 CPU processes (DDP and FSDP2), and SFT's kill-and-resume, as real subprocesses.

DDP runs use recipes/accelerate_configs/cpu.yaml, the README's CPU command line, and ddp.yaml as shipped with
the README's `--num_processes` (2 here) and `--mixed_precision no`. FSDP2 runs use
recipes/accelerate_configs/fsdp.yaml itself, with mixed_precision "no" and `--num_processes 2` on the command
line as the README passes it, through tests/fsdp_on_cpu.py: accelerate shards on GPUs only, and that wrapper
lifts its one device gate.
Multi-process SFT is compared with one process on the same global batch at steps 1 and 2 (loss and
gradient norm: the first update, the LM head's gradient included, must be averaged over the processes)
and through the saved folder's logits; PPO under FSDP2 is compared with PPO under DDP (same processes,
same samples). Module-scoped fixtures share each run between the tests that read it.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
ACCELERATE_CPU = REPO / "recipes" / "accelerate_configs" / "cpu.yaml"
ACCELERATE_DDP = REPO / "recipes" / "accelerate_configs" / "ddp.yaml"
ACCELERATE_FSDP = REPO / "recipes" / "accelerate_configs" / "fsdp.yaml"
FSDP_ON_CPU = REPO / "tests" / "fsdp_on_cpu.py"


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory, tiny_tokenizer):
    path = tmp_path_factory.mktemp("tok")
    tiny_tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def fsdp_cpu_config(tmp_path_factory) -> Path:
    """fsdp.yaml as shipped, in fp32 (CPU autocast to bf16 would only add noise); the process count comes from
    the command line, as in the README's launch lines."""
    config = yaml.safe_load(ACCELERATE_FSDP.read_text())
    assert "num_processes" not in config  # a fixed count would start 8 processes on a one-GPU machine
    config.update(mixed_precision="no")
    path = tmp_path_factory.mktemp("accelerate") / "fsdp_cpu.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


# Imported by every launched process (sitecustomize, through PYTHONPATH): at exit, after the recipe's own exit
# handlers, each rank writes the names of its threads still alive to EXIT_THREADS_DIR/rank<RANK>
# (`_exit_threads(out)`: beside the run's output folder, which holds this hook too).
EXIT_THREADS_HOOK = """
import atexit, os
def _record():
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            names.append(open(f"/proc/self/task/{tid}/comm").read().strip())
        except OSError:
            pass
    with open(os.path.join(os.environ["EXIT_THREADS_DIR"], "rank" + os.environ["RANK"]), "w") as f:
        f.write("\\n".join(names))
if os.environ.get("RANK") and os.environ.get("EXIT_THREADS_DIR"):
    atexit.register(_record)
"""


def _exit_threads(out: Path) -> Path:
    return out.with_name(out.name + ".exit_threads")


def _env(exit_threads: Path | None = None) -> dict[str, str]:
    # One thread per process: two launched processes share the two cores.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": str(REPO)}
    if exit_threads is not None:  # the hook and its records in one folder
        exit_threads.mkdir(parents=True, exist_ok=True)
        (exit_threads / "sitecustomize.py").write_text(EXIT_THREADS_HOOK)
        env.update(PYTHONPATH=f"{exit_threads}{os.pathsep}{REPO}", EXIT_THREADS_DIR=str(exit_threads))
    return env


def _sft_args(tokenizer_dir: Path, out: Path, per_device: int, *extra: str) -> list[str]:
    return [
        "recipes/sft.py", "--config", "recipes/tiny/sft.yaml", "--tokenizer_name_or_path", str(tokenizer_dir),
        "--output_dir", str(out), "--d_embed", "16", "--d_hidden", "32", "--n_layers", "1", "--num_dialogs", "32", "--num_terminal", "0",
        "--task_repeats", "0", "--max_length", "512", "--per_device_train_batch_size", str(per_device),
        "--logging_steps", "1", "--save_strategy", "steps", "--save_steps", "1", "--report_to", "none", *extra,
    ]


def _run(argv: list[str], config: Path | None = None, fsdp: bool = False, timeout: float = 600,
         launch: tuple[str, ...] = (), exit_threads: Path | None = None) -> str:
    """Run a recipe: in this process's Python, or under `accelerate launch --config_file config *launch`
    (2 processes: the GPU configs take the count from the command line, as the README launches them);
    with ``exit_threads`` (a folder) each rank records there its threads left at exit (EXIT_THREADS_HOOK)."""
    prefix = [sys.executable]
    if config is not None:
        prefix += ["-m", "accelerate.commands.launch", "--config_file", str(config), *launch]
        prefix += ["--num_processes", "2"] if config != ACCELERATE_CPU else []
        prefix += [str(FSDP_ON_CPU)] if fsdp else []
    # its own session: on a timeout the launcher and its ranks are killed together, and what they printed is shown
    proc = subprocess.Popen(prefix + argv, cwd=REPO, env=_env(exit_threads), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the launch ran past {timeout:g} s; its output ends:\n{stdout[-3000:]}\n{stderr[-6000:]}")
    assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
    return stdout + stderr


def _logs(out: Path) -> dict[int, dict]:
    """Per-step training logs from the newest checkpoint's trainer_state.json."""
    last = max(out.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    history = json.loads((last / "trainer_state.json").read_text())["log_history"]
    return {entry["step"]: entry for entry in history if "loss" in entry}


def _losses(out: Path) -> dict[int, float]:
    return {step: entry["loss"] for step, entry in _logs(out).items()}


# --- SFT: one process, DDP, FSDP2 -------------------------------------------------------------

# Sequential order: the two processes' shards (rows 0-1 and 2-3) are then the one process's batch. No warmup,
# so step 1 moves the weights and step 2's loss and gradient norm test the averaged update.
SFT_TWO_STEPS = ["--max_steps", "2", "--warmup_steps", "0", "--train_sampling_strategy", "sequential"]


@pytest.fixture(scope="module")
def sft_one(tmp_path_factory, tokenizer_dir) -> Path:
    out = tmp_path_factory.mktemp("sft") / "one"
    _run(_sft_args(tokenizer_dir, out, 4, *SFT_TWO_STEPS))
    return out


@pytest.fixture(scope="module")
def sft_ddp(tmp_path_factory, tokenizer_dir) -> Path:
    out = tmp_path_factory.mktemp("sft") / "ddp"
    # ddp.yaml as shipped; its bf16 autocast would only add noise on CPU
    _run(_sft_args(tokenizer_dir, out, 2, *SFT_TWO_STEPS), config=ACCELERATE_DDP, launch=("--mixed_precision", "no"),
         exit_threads=_exit_threads(out))
    return out


@pytest.fixture(scope="module")
def sft_fsdp(tmp_path_factory, tokenizer_dir, fsdp_cpu_config) -> tuple[Path, str]:
    # r2/sft.yaml's optimizer, so the run also shows the fallback from bitsandbytes to torch's AdamW.
    out = tmp_path_factory.mktemp("sft") / "fsdp"
    log = _run(_sft_args(tokenizer_dir, out, 2, *SFT_TWO_STEPS, "--optim", "adamw_bnb_8bit"),
               config=fsdp_cpu_config, fsdp=True, exit_threads=_exit_threads(out))
    return out, log


def _assert_same_steps(run: Path, reference: Path, keys: tuple[str, ...] = ("loss", "grad_norm")) -> None:
    logs, expected = _logs(run), _logs(reference)
    assert sorted(logs) == sorted(expected) == [1, 2]
    for step in expected:
        for key in keys:
            assert logs[step][key] == pytest.approx(expected[step][key], rel=1e-4), (step, key)


def test_sft_on_two_ddp_processes_matches_one_process(sft_one, sft_ddp):
    _assert_same_steps(sft_ddp, sft_one)


def _threads_at_exit(launcher: str, request) -> dict[int, list[str]]:
    out = request.getfixturevalue(launcher)
    out = out[0] if isinstance(out, tuple) else out
    return {rank: (_exit_threads(out) / f"rank{rank}").read_text().split() for rank in (0, 1)}


@pytest.mark.parametrize("launcher", ["sft_ddp", "sft_fsdp"])
def test_launched_ranks_run_their_exit_handlers(launcher, request):
    """A launched rank leaves without the interpreter's teardown (`errors.exit_launched_rank`), after its exit
    handlers: the hook's record is one of them."""
    assert all(threads for threads in _threads_at_exit(launcher, request).values())


def test_a_ddp_rank_frees_its_process_group_before_exit(request):
    """The recipe frees its process group while the interpreter is whole (`errors.leave_process_group`). A gloo
    thread alive at teardown is what aborted a saved DDP run in CI now and then ("terminate called without an
    active exception", exit -6); the abort is a race, the thread left alive is not. (Under FSDP2 C++ holds the
    group: `exit_launched_rank` leaves before teardown instead.)"""
    for rank, threads in _threads_at_exit("sft_ddp", request).items():
        assert not [name for name in threads if "gloo" in name], (rank, threads)


def test_sft_under_fsdp2_matches_one_process(sft_one, sft_fsdp):
    _assert_same_steps(sft_fsdp[0], sft_one)


def test_fsdp2_trades_the_bitsandbytes_optimizer_for_adamw_with_one_line(sft_fsdp):
    notices = [line for line in sft_fsdp[1].splitlines() if "bitsandbytes optimizer" in line]
    assert len(notices) == 1 and "adamw_torch" in notices[0]


def test_fsdp2_checkpoints_are_sharded_and_merge_to_the_saved_weights(sft_fsdp, tmp_path):
    from accelerate.utils import merge_fsdp_weights
    from safetensors.torch import load_file

    out = sft_fsdp[0]
    sharded = out / "checkpoint-2" / "pytorch_model_fsdp_0"
    assert sharded.is_dir() and not (out / "checkpoint-2" / "model.safetensors").exists()
    merge_fsdp_weights(str(sharded), str(tmp_path))
    merged, saved = load_file(tmp_path / "model.safetensors"), load_file(out / "model.safetensors")
    assert sorted(merged) == sorted(saved)
    # accelerate's merge writes the parameters as they are in memory: the mixing weights (C,), where
    # save_pretrained writes RWKV-4's (1, 1, C) (from_pretrained reads either)
    assert all(torch.equal(merged[name].reshape(saved[name].shape), saved[name]) for name in saved)


@pytest.mark.parametrize("launcher", ["sft_ddp", "sft_fsdp"])
def test_saved_folder_reloads_with_the_one_process_logits(launcher, request, sft_one):
    from transformers import AutoModelForCausalLM

    out = request.getfixturevalue(launcher)
    out = out[0] if isinstance(out, tuple) else out
    config = json.loads((out / "config.json").read_text())
    assert config["auto_map"]["AutoModelForCausalLM"] == "modeling_tiny_rwkv.TinyRWKVForCausalLM"
    assert config["architectures"] == ["TinyRWKVForCausalLM"] and not list(out.glob("_fsdp*.py"))
    ids = torch.randint(0, 288, (2, 24), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits = AutoModelForCausalLM.from_pretrained(out).eval()(ids).logits
        expected = AutoModelForCausalLM.from_pretrained(sft_one).eval()(ids).logits
    # two Adam steps at the recipe's lr turn the processes' different reduction order into logit differences of a
    # few 1e-5 (1.8e-5 measured at 3e-3); one optimizer step moves them by ~0.5 at 3e-3 (Adam's step scales with
    # the lr, so about a third of that at the recipe's 1e-3), a wrong update as much
    torch.testing.assert_close(logits, expected, rtol=1e-3, atol=2e-4)


# --- GRPO: one process, DDP, FSDP2 ------------------------------------------------------------


def _grpo_args(tokenizer_dir: Path, out: Path, per_device: int, *extra: str) -> list[str]:
    return [
        "recipes/grpo.py", "--config", "recipes/tiny/grpo.yaml", "--model_name_or_path", "", "--beta", "0",
        "--tokenizer_name_or_path", str(tokenizer_dir), "--output_dir", str(out), "--d_embed", "16",
        "--d_hidden", "32", "--n_layers", "1", "--max_steps", "1", "--num_generations", "4",
        "--per_device_train_batch_size", str(per_device), "--max_completion_length", "8",
        "--temperature", "1.0", "--save_strategy", "steps", "--save_steps", "1", "--report_to", "none",
        "--num_terminal", "0", "--reward_funcs", "execution", "protocol", "--reward_weights", "1.0", "1.0", *extra,
    ]


def test_grpo_on_two_processes_runs_and_matches_one_process_at_step_one(tmp_path, tokenizer_dir):
    _run(_grpo_args(tokenizer_dir, tmp_path / "one", 8))
    _run(_grpo_args(tokenizer_dir, tmp_path / "two", 4), config=ACCELERATE_CPU)
    one, two = _losses(tmp_path / "one")[1], _losses(tmp_path / "two")[1]
    # Completions are sampled, so the two runs see different samples of the same prompts; at step 1 the
    # policy ratio is 1 and the group-normalised advantages average to zero, so both losses sit near 0.
    assert abs(one) < 0.05 and abs(two) < 0.05 and abs(one - two) < 0.05


def test_grpo_under_fsdp2_runs_a_step_from_the_fsdp2_sft_folder_with_a_reference_model(tmp_path, sft_fsdp, fsdp_cpu_config):
    from transformers import AutoModelForCausalLM

    sft_dir, out = sft_fsdp[0], tmp_path / "grpo"
    # beta > 0: TRL shards the reference model (loaded from the SFT folder) as one more FSDP2 unit.
    args = _grpo_args(sft_dir, out, 4, "--model_name_or_path", str(sft_dir), "--beta", "0.02")
    _run(args, config=fsdp_cpu_config, fsdp=True)
    step = _logs(out)[1]
    assert abs(step["loss"]) < 0.05 and step["kl"] == pytest.approx(0.0, abs=1e-6)  # the policy is the reference
    assert AutoModelForCausalLM.from_pretrained(out).config.d_hidden == 32


# --- PPO: DDP and FSDP2 -----------------------------------------------------------------------


def _ppo_args(tokenizer_dir: Path, out: Path) -> list[str]:
    # A fresh model and beta 0 (no reference); two minibatch steps of 2 completions per process.
    return [
        "recipes/ppo.py", "--config", "recipes/tiny/ppo.yaml", "--model_name_or_path", "", "--beta", "0",
        "--tokenizer_name_or_path", str(tokenizer_dir), "--output_dir", str(out), "--d_embed", "16",
        "--d_hidden", "32", "--n_layers", "1", "--max_steps", "2", "--steps_per_generation", "2",
        "--num_iterations", "1", "--per_device_train_batch_size", "2", "--max_completion_length", "8",
        "--save_strategy", "steps", "--save_steps", "1", "--report_to", "none",
    ]


@pytest.fixture(scope="module")
def ppo_ddp(tmp_path_factory, tokenizer_dir) -> Path:
    out = tmp_path_factory.mktemp("ppo") / "ddp"
    _run(_ppo_args(tokenizer_dir, out), config=ACCELERATE_CPU)
    return out


@pytest.fixture(scope="module")
def ppo_fsdp(tmp_path_factory, tokenizer_dir, fsdp_cpu_config) -> Path:
    out = tmp_path_factory.mktemp("ppo") / "fsdp"
    _run(_ppo_args(tokenizer_dir, out), config=fsdp_cpu_config, fsdp=True)
    return out


def test_ppo_under_fsdp2_matches_ppo_under_ddp(ppo_ddp, ppo_fsdp):
    # Same processes, seeds and weights sample the same completions, so every number must agree: the
    # value loss and the gradient norm carry the value head, which runs inside the sharded forward.
    _assert_same_steps(ppo_fsdp, ppo_ddp, ("loss", "grad_norm", "ppo/policy_loss", "ppo/value_loss", "ppo/entropy"))
    assert _logs(ppo_fsdp)[2]["grad_norm"] > 0


def test_ppo_fsdp2_folder_reloads_with_its_value_head(ppo_fsdp):
    from safetensors.torch import load_file

    from rusty_hf.models.tiny_rwkv import TinyRWKVForCausalLMWithValueHead

    model = TinyRWKVForCausalLMWithValueHead.from_pretrained(ppo_fsdp)
    saved = load_file(ppo_fsdp / "model.safetensors")
    assert torch.equal(model.v_head.weight, saved["v_head.weight"]) and saved["v_head.weight"].any()
    auto_map = json.loads((ppo_fsdp / "config.json").read_text())["auto_map"]
    assert auto_map["AutoModelForCausalLM"] == "modeling_tiny_rwkv.TinyRWKVForCausalLM"


# --- kill and resume ----------------------------------------------------------------------------


def test_sft_killed_mid_run_resumes_to_the_same_losses(tmp_path, tokenizer_dir):
    steps = ["--max_steps", "6", "--save_steps", "2", "--learning_rate", "1e-2"]
    _run(_sft_args(tokenizer_dir, tmp_path / "full", 4, *steps))
    full = _losses(tmp_path / "full")

    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, *_sft_args(tokenizer_dir, out, 4, *steps, "--save_steps", "2")],
                            cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        while not (out / "checkpoint-2" / "trainer_state.json").is_file() and proc.poll() is None:
            assert time.monotonic() < deadline, "no checkpoint-2 within 10 minutes"
            time.sleep(0.2)
        time.sleep(0.5)  # let the checkpoint's last file land, then kill hard, mid-run
        proc.kill()
    finally:
        proc.wait()
    for late in out.glob("checkpoint-*"):
        if int(late.name.split("-")[1]) > 2:  # the run may have got further; resume from step 2 regardless
            import shutil

            shutil.rmtree(late)
    _run(_sft_args(tokenizer_dir, out, 4, *steps, "--resume_from_checkpoint", "last"))
    resumed = _losses(out)
    assert resumed[3] == pytest.approx(full[3], abs=1e-4)
    assert resumed[6] == pytest.approx(full[6], abs=1e-4)
