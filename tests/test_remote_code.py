"""A saved TinyRWKV folder is a self-contained Hub repo: it loads where rusty_hf does not exist."""

import json
import subprocess
import sys
import textwrap

import torch
from transformers.dynamic_module_utils import get_imports

from rusty_hf import TinyRWKVForCausalLM
from tests.conftest import randomise_zero_init, tiny_config

_LOAD_WITHOUT_RUSTY_HF = textwrap.dedent(
    """
    import sys
    sys.modules["rusty_hf"] = None  # any import of rusty_hf now raises ImportError
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    folder, ids_file, out_file = sys.argv[1:]
    try:
        import rusty_hf  # noqa: F401
        raise SystemExit("rusty_hf was importable")
    except ImportError:
        pass
    assert AutoConfig.from_pretrained(folder, trust_remote_code=True).model_type == "tiny_rwkv"
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
    assert type(model).__module__.startswith("transformers_modules"), type(model).__module__
    ids = torch.load(ids_file)
    with torch.no_grad():
        logits = model(ids).logits
    generated = model.generate(ids[:1], max_new_tokens=5, min_new_tokens=5, do_sample=False)
    torch.save({"logits": logits, "generated": generated}, out_file)
    """
)


def test_remote_code_round_trip_is_bit_exact_in_a_process_without_rusty_hf(tmp_path):
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config())).eval()
    folder = tmp_path / "ckpt"
    model.save_pretrained(folder)
    config = json.loads((folder / "config.json").read_text())
    assert config["auto_map"]["AutoModelForCausalLM"] == "modeling_tiny_rwkv.TinyRWKVForCausalLM"
    for code in ("configuration_tiny_rwkv.py", "modeling_tiny_rwkv.py", "wkv.py", "wkv_torch.py", "wkv_triton.py",
                 "cpu_kernels.py", "kernel_cache.py"):
        assert (folder / code).is_file(), code

    ids = torch.randint(2, 99, (2, 12))
    torch.save(ids, tmp_path / "ids.pt")
    script = tmp_path / "load.py"
    script.write_text(_LOAD_WITHOUT_RUSTY_HF)
    env = {"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HF_MODULES_CACHE": str(tmp_path / "modules")}
    proc = subprocess.run(
        [sys.executable, str(script), str(folder), str(tmp_path / "ids.pt"), str(tmp_path / "out.pt")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    remote = torch.load(tmp_path / "out.pt")
    with torch.no_grad():
        assert torch.equal(remote["logits"], model(ids).logits)
    local = model.generate(ids[:1], max_new_tokens=5, min_new_tokens=5, do_sample=False)
    assert torch.equal(remote["generated"], local)


def test_saved_code_requires_only_torch_and_transformers(tmp_path):
    """transformers refuses remote code whose files import a missing package outside a try block
    (it checks every file when the code comes from the Hub): triton must stay optional."""
    TinyRWKVForCausalLM(tiny_config()).save_pretrained(tmp_path)
    for code in tmp_path.glob("*.py"):
        assert set(get_imports(code)) <= {"torch", "transformers"} | set(sys.stdlib_module_names), code.name


_LOAD_CLASSIFIER_WITHOUT_RUSTY_HF = textwrap.dedent(
    """
    import sys
    sys.modules["rusty_hf"] = None
    import torch
    from transformers import AutoModelForSequenceClassification
    folder, ids_file, out_file = sys.argv[1:]
    model = AutoModelForSequenceClassification.from_pretrained(folder, trust_remote_code=True).eval()
    assert type(model).__module__.startswith("transformers_modules"), type(model).__module__
    with torch.no_grad():
        torch.save(model(torch.load(ids_file)).logits, out_file)
    """
)


def test_a_reward_model_head_loads_as_remote_code_in_a_process_without_rusty_hf(tmp_path):
    from rusty_hf.models.tiny_rwkv import TinyRWKVForSequenceClassification

    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForSequenceClassification(tiny_config(num_labels=1))).eval()
    model.save_pretrained(tmp_path / "rm")
    config = json.loads((tmp_path / "rm" / "config.json").read_text())
    assert config["auto_map"]["AutoModelForSequenceClassification"].endswith("TinyRWKVForSequenceClassification")
    ids = torch.randint(2, 99, (3, 7))
    torch.save(ids, tmp_path / "ids.pt")
    (tmp_path / "load.py").write_text(_LOAD_CLASSIFIER_WITHOUT_RUSTY_HF)
    env = {"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HF_MODULES_CACHE": str(tmp_path / "modules")}
    proc = subprocess.run([sys.executable, str(tmp_path / "load.py"), str(tmp_path / "rm"), str(tmp_path / "ids.pt"),
                           str(tmp_path / "out.pt")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    with torch.no_grad():
        assert torch.equal(torch.load(tmp_path / "out.pt"), model(ids).logits)
