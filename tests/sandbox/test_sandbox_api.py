"""The sandbox's public API: results, files, environment, errors, layers, concurrency."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_harness import require_layers, wait_until_gone

import rusty_hf
from rusty_hf.sandbox import Limits, capabilities, run, run_python
from rusty_hf.sandbox.capabilities import detect


def test_run_python_reports_output_and_success():
    result = run_python("import sys\nprint('out')\nprint('err', file=sys.stderr)\n")
    assert result.ok and result.returncode == 0 and not result.timed_out
    assert (result.stdout, result.stderr) == ("out\n", "err\n")
    assert result.limit_hit is None and not result.stdout_truncated and not result.stderr_truncated
    assert set(capabilities().layers()) == set(result.layers) and "timeout" in result.layers
    assert 0 < result.duration_s < 10


def test_exit_codes_and_signals_are_reported():
    assert run_python("raise SystemExit(3)").returncode == 3
    died = run_python("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    assert died.returncode == -15 and not died.ok


@pytest.mark.parametrize("collect", [True, False])
def test_empty_folders_go_in_and_every_folder_comes_back(collect):
    script = "ls -d old keep/inner && rmdir old && mkdir -p new/deep"
    result = run(["/bin/sh", "-c", script], files={"a.txt": "x"}, dirs=["old", "keep/inner"], collect_files=collect)
    assert result.ok, result.stderr
    assert result.folders == ({"keep", "keep/inner", "new", "new/deep"} if collect else None)


@pytest.mark.parametrize("bad", ["/abs", "../up", "a/../../up", "", ".", "a.txt", "a.txt/inner"])
def test_a_folder_outside_the_work_dir_or_on_a_file_is_refused(bad):
    with pytest.raises(ValueError, match="folder"):
        run(["true"], files={"a.txt": "x"}, dirs=[bad], collect_files=True)


def test_files_land_in_the_work_dir_which_is_cwd_and_home():
    files = {"solution.py": "X = 41\n", "data/in.bin": b"\x00\x01", ".nonce": "n"}
    code = textwrap.dedent("""
        import os, solution
        print(solution.X + 1, open('data/in.bin', 'rb').read(), open('.nonce').read())
        print(os.getcwd() == os.path.expanduser('~'), sorted(os.listdir('.')))
    """)
    result = run_python(code, files=files)
    assert result.ok, result.stderr
    assert result.stdout.splitlines() == ["42 b'\\x00\\x01' n", "True ['.nonce', 'data', 'main.py', 'solution.py']"]


def test_work_dir_is_fresh_for_every_run():
    run_python("open('left_behind.txt', 'w').write('x')")
    assert run_python("import os\nprint(os.path.exists('left_behind.txt'))").stdout == "False\n"


def test_host_work_dir_is_deleted_without_bwrap(without_bwrap, open_tmp, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(open_tmp))  # make mkdtemp's choice observable
    result = run_python("import os\nprint(os.getcwd())", caps=without_bwrap)
    assert result.ok and result.stdout.startswith(str(open_tmp)), result.stderr
    assert list(open_tmp.iterdir()) == []


@pytest.mark.parametrize("name", ["/etc/passwd", "../up.txt", "a/../../b", "", "."])
def test_file_names_that_leave_the_work_dir_are_rejected(name):
    with pytest.raises(ValueError, match="relative path|non-empty"):
        run_python("pass", files={name: "x"})


def test_bad_arguments_get_one_clear_error():
    with pytest.raises(ValueError, match="main.py"):
        run_python("pass", files={"main.py": "x"})
    with pytest.raises(ValueError, match="non-empty list"):
        run("echo hi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        run(["true"], timeout=0)
    with pytest.raises(ValueError, match="Limits.memory_mb"):
        Limits(memory_mb=0)
    with pytest.raises(ValueError, match="does not exist"):
        run(["true"], ro_paths=["/no/such/dir"])
    with pytest.raises(ValueError, match="unknown sandbox layer"):
        capabilities().without("seccomp")


def test_dev_holds_the_usual_nodes_and_a_capped_shm():
    require_layers("/dev under bubblewrap", "bwrap-fs")
    code = textwrap.dedent(
        """
        import os
        print(sorted(os.listdir("/dev")))
        with open("/dev/null", "w") as f: f.write("x")
        print(len(open("/dev/urandom", "rb").read(8)), open("/dev/zero", "rb").read(2))
        with open("/dev/shm/block", "wb") as f:
            try:
                f.write(b"x" * (3 << 20))
                print("shm full? no")
            except OSError as exc:
                print("shm capped", exc.errno)
        """
    )
    result = run_python(code, limits=Limits(disk_mb=2, fsize_mb=8))
    assert result.ok, result.stderr
    listing, sizes, shm = result.stdout.splitlines()
    assert listing == str(["fd", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"])
    assert sizes == "8 b'\\x00\\x00'" and shm.startswith("shm capped")


def test_a_named_user_gets_account_files_of_its_own_and_none_of_the_hosts():
    """``user=``: ``ls -l`` and ``whoami`` show the name, not the per-run uid; passwd lists root, it, nobody."""
    require_layers("account files under bubblewrap", "bwrap-fs")
    script = "touch made; ls -l made; whoami; cut -d: -f1,3 /etc/passwd; cut -d: -f1 /etc/group; id -u"
    named = run(["sh", "-c", script], user="sandbox")
    assert named.ok, named.stderr
    listing, who, *accounts = named.stdout.splitlines()
    uid = accounts.pop()
    assert listing.split()[2:4] == ["sandbox", "sandbox"] and who == "sandbox"
    assert accounts == ["root:0", f"sandbox:{uid}", "nobody:65534", "root", "sandbox", "nogroup"]
    plain = run(["sh", "-c", "ls /etc; touch made; ls -n made; ls -l made"])
    assert "passwd" not in plain.stdout and plain.stdout.splitlines()[-1].split()[2] != "sandbox"
    with pytest.raises(ValueError, match="login name"):
        run(["true"], user="root")
    with pytest.raises(ValueError, match="login name"):
        run(["true"], user="a:b\nroot")


def test_a_collected_work_dir_starts_with_the_times_it_is_given():
    day = 1_700_000_000
    times = {"a.txt": day * 10**9, "d": (day + 60) * 10**9, "d/b.txt": (day + 120) * 10**9, ".": (day + 180) * 10**9}
    files = {"a.txt": b"a", "d/b.txt": b"b", "c.txt": b"c"}
    result = run(["stat", "-c", "%Y %n", "a.txt", "d", "d/b.txt", "."], files=files, collect_files=True, mtimes=times)
    assert result.ok, result.stderr
    assert result.stdout.splitlines() == [f"{day} a.txt", f"{day + 60} d", f"{day + 120} d/b.txt", f"{day + 180} ."]
    with pytest.raises(ValueError, match="collect_files"):
        run(["true"], files=files, mtimes=times)
    with pytest.raises(ValueError, match="'e.txt' is neither"):
        run(["true"], files=files, collect_files=True, mtimes={"e.txt": 0})


def test_environment_is_clean(monkeypatch):
    monkeypatch.setenv("RUSTY_TEST_SECRET", "hunter2")
    result = run_python("import os\nprint(sorted(os.environ))")
    assert "RUSTY_TEST_SECRET" not in result.stdout and "HOME" in result.stdout and "LANG" in result.stdout
    extra = run(["sh", "-c", "echo $GREETING"], env={"GREETING": "hi"})
    assert extra.stdout == "hi\n"


def test_ro_paths_are_readable_but_not_writable(tmp_path):
    require_layers("ro_paths", "bwrap-fs")
    (tmp_path / "tool.txt").write_text("toolchain")
    tmp_path.chmod(0o755)
    code = f"print(open({str(tmp_path / 'tool.txt')!r}).read())\nopen({str(tmp_path / 'new.txt')!r}, 'w')\n"
    result = run(["python3", "-c", code], ro_paths=[str(tmp_path)])
    assert result.stdout == "toolchain\n" and "Errno 30" in result.stderr  # EROFS: read-only
    assert not (tmp_path / "new.txt").exists()
    unbound = run(["python3", "-c", f"open({str(tmp_path / 'tool.txt')!r})"])
    assert "FileNotFoundError" in unbound.stderr


def test_concurrent_runs_from_threads_keep_their_own_results():
    code = "import sys, time\ntime.sleep(0.05)\nprint(sys.argv[1])\n"
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: run_python(code, args=[str(i)]), range(16)))
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(16)]


def test_concurrent_runs_from_processes():
    # rusty_hf/__init__ imports torch (seconds per process); the sandbox needs none of it, so the
    # child processes load rusty_hf.sandbox with the package's __init__ skipped.
    package_dir = rusty_hf.__path__[0]
    script = (
        "import sys, types\n"
        f"pkg = types.ModuleType('rusty_hf'); pkg.__path__ = [{package_dir!r}]; sys.modules['rusty_hf'] = pkg\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from rusty_hf.sandbox import run_python\n"
        "with ThreadPoolExecutor(3) as pool:\n"
        "    rs = list(pool.map(lambda i: run_python(f'print({i})'), range(6)))\n"
        "assert [r.stdout for r in rs] == [f'{i}\\n' for i in range(6)], rs\n"
        "print('ok')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    assert [p.communicate(timeout=120)[0].strip() for p in procs] == ["ok", "ok"]


def test_describe_names_every_layer_and_how_to_get_bwrap(without_bwrap):
    text = without_bwrap.describe()
    for layer in ("rlimits", "bubblewrap", "non-root uid", "pids cgroup", "memory cgroup"):
        assert layer in text
    assert "[off] bubblewrap" in text and "apt-get install bubblewrap" in text
    assert "while off, a run reads and writes every file its uid may" in text  # what the missing layer exposes
    assert "bwrap-fs" not in without_bwrap.layers()


def test_plain_subprocess_layer_still_runs_code():
    bare = detect(skip=("bwrap", "unshare", "uid", "cgroups", "prlimit"))
    result = run_python("import resource\nprint(resource.getrlimit(resource.RLIMIT_NOFILE))", caps=bare)
    assert result.ok and result.stdout == "(256, 256)\n"  # rlimits via the preexec_fn fallback
    assert "bwrap-fs" not in result.layers and "netns" not in result.layers


def test_site_packages_can_be_left_out_for_a_faster_start():
    code = "import sys\nprint(any('site-packages' in p for p in sys.path))"
    assert run_python(code).stdout == "True\n"
    assert run_python(code, site_packages=False).stdout == "False\n"


def test_run_ends_with_its_main_program_even_if_a_child_keeps_stdout_open():
    # Without namespaces nothing dies with the main program: the reader must notice the exit,
    # not wait for EOF, and the run's cgroup must take the child down.
    caps = detect(skip=("bwrap", "unshare", "uid"))
    require_layers("child holding stdout", "cgroup-pids", "cgroup-kill", caps=caps)
    code = "import os, sys, time\nif os.fork() == 0:\n    time.sleep(30)\nprint('main done')\n"
    token = f"rusty-holder-{os.getpid()}"
    result = run_python(code, args=[token], timeout=10, caps=caps)
    assert result.ok and result.stdout == "main done\n"  # not timed out: the child's 30 s sleep did not hold it
    assert wait_until_gone(token) == []


def test_network_true_keeps_the_host_network():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        code = f"import socket\nprint(socket.socket().connect_ex(('127.0.0.1', {port})))"
        result = run(["python3", "-c", code], network=True)
    assert result.stdout == "0\n" and "netns" not in result.layers
