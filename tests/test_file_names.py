"""The file-names benchmark's judges (`benchmarks/file_names.py`): the right command on the named file passes, a
command on another file or the wrong verb fails (run by a shell in the benchmark's own work dir)."""

import importlib.util
import subprocess
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("file_names", Path(__file__).resolve().parents[1] / "benchmarks" / "file_names.py")
file_names = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(file_names)

RIGHT = {"run": "python3 {f}", "show": "cat {f}", "count": "wc -l {f}", "delete": "rm {f}", "first": "head -n 1 {f}",
         "append": "echo 'zzz top' >> {f}", "copy": "cp {f} backup.txt"}  # fmt: skip


def _run(w: Path, command: str) -> str:
    done = subprocess.run(command, shell=True, cwd=w, capture_output=True, text=True)
    return done.stdout + done.stderr


@pytest.mark.parametrize("kind,template,names,check", file_names.REQUESTS, ids=[r[1] for r in file_names.REQUESTS])
def test_the_right_command_passes_and_another_file_fails(tmp_path, kind, template, names, check):
    name = names[-1]  # in a folder where there is one
    right = file_names._workdir(tmp_path / "right", name)
    assert check(right, _run(right, RIGHT[kind].format(f=name)), name)
    other = file_names._workdir(tmp_path / "other", name)
    assert not check(other, _run(other, RIGHT[kind].format(f="keep.txt")), name)


def test_showing_a_script_is_not_running_it(tmp_path):
    w = file_names._workdir(tmp_path, "app.py")
    assert not file_names._shown(w, _run(w, "python3 app.py"), "app.py")
    assert not file_names._ran(w, _run(w, "cat keep.txt"), "app.py")
