"""space/app.py served in-process: gradio_client round trips, 20 concurrent clients, hygiene."""

from __future__ import annotations

import re
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from gradio_client import Client

from rusty_hf.protocol import Action
from tests.space.conftest import CONCURRENCY_LIMIT, MAX_INPUT_CHARS

CARD = re.compile(r'class="rusty-card rusty-(msg|cmd|edit|error)"')


def _chat(url: str, message: str, constrained: bool = True):
    # A generous HTTP timeout: 20 clients queue behind CONCURRENCY_LIMIT generations on 2 busy cores.
    client = Client(url, verbose=False, httpx_kwargs={"timeout": 300})
    history, files, textbox = client.predict(message, [], constrained, api_name="/chat")
    return history, files, textbox


def test_round_trip_renders_a_valid_action(served_space):
    history, files, textbox = _chat(served_space[0], "list the files")
    assert [turn["role"] for turn in history] == ["user", "assistant"]
    assert textbox == ""
    content = history[-1]["content"]
    content = content if isinstance(content, str) else str(content)
    kind = CARD.search(content)
    assert kind is not None and kind.group(1) != "error", content  # constrained: always a valid action
    assert "rusty-files" in files


def test_unconstrained_reply_is_parsed_or_shown_with_its_correction(served_space):
    history, _, _ = _chat(served_space[0], "hello", constrained=False)
    content = str(history[-1]["content"])
    kind = CARD.search(content).group(1)
    if kind == "error":
        assert "Correction sent to the model" in content and "Reply with exactly one JSON object" in content


def test_twenty_concurrent_clients_all_get_answers(served_space):
    url = served_space[0]
    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(lambda i: _chat(url, f"task {i}: run the tests"), range(20)))
    assert len(results) == 20
    assert 1 <= served_space[2]["max"] <= CONCURRENCY_LIMIT  # the queue held the rest back
    for history, _, _ in results:
        assert CARD.search(str(history[-1]["content"])).group(1) in ("msg", "cmd", "edit")


def test_too_long_input_is_rejected_with_the_limit(served_space):
    with pytest.raises(Exception, match=f"limit is {MAX_INPUT_CHARS}"):
        _chat(served_space[0], "x" * (MAX_INPUT_CHARS + 1))


def test_page_links_to_the_source(served_space, space_app):
    page = urllib.request.urlopen(served_space[0], timeout=30).read().decode()
    config = urllib.request.urlopen(served_space[0].rstrip("/") + "/config", timeout=30).read().decode()
    assert space_app.SOURCE_URL in page + config
    assert "AGPL-3.0" in config


def test_generation_failure_reveals_no_server_detail(space_app, tiny_tokenizer):
    class Broken:
        device = "cpu"

        def generate(self, **kwargs):
            raise RuntimeError("secret-token-123 in /root/private/path")

    demo = space_app.build_demo(Broken(), tiny_tokenizer)
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True)
    try:
        with pytest.raises(Exception) as info:
            _chat(url, "hi")
        assert "secret-token-123" not in str(info.value) and "/root/private" not in str(info.value)
        assert "Generation failed" in str(info.value)
    finally:
        demo.close()


def test_edit_writes_only_inside_the_session_workdir(space_app):
    session = space_app.Session()
    try:
        assert session.files() == space_app.DEMO_FILES  # a new visitor's small project
        assert session.write("src/main.py", "print(1)\n") is None
        assert session.files() == {**space_app.DEMO_FILES, "src/main.py": "print(1)\n"}
        assert "refused" in session.write("../escape.py", "x")
        assert "refused" in session.write("/etc/passwd", "x")
        assert not (session.workdir.parent / "escape.py").exists()
    finally:
        session.close()
    assert not session.workdir.exists()


def test_sandboxed_command_sees_the_session_files(space_app):
    card = space_app.run_in_sandbox("cat notes.txt; echo done", {"notes.txt": "hello from EDIT\n"})
    assert "hello from EDIT" in card and "done" in card and "exit 0" in card


def test_cards_escape_model_html(space_app):
    card = space_app.render.render_action(Action("MSG", message="<script>alert(1)</script>"))
    assert "<script>" not in card and "&lt;script&gt;" in card


def test_an_edit_path_the_filesystem_refuses_is_refused_not_a_crash(space_app):
    session = space_app.Session()
    try:
        assert "File name too long" in session.write("x" * 300 + ".py", "x")
        assert session.write("notes", "a") is None
        assert "refused: cannot write" in session.write("notes/inside.py", "b")  # a file where a folder must go
    finally:
        session.close()


def test_without_rusty_model_the_quickstarts_folder_is_served(space_app, monkeypatch, tmp_path):
    monkeypatch.delenv("RUSTY_MODEL", raising=False)
    monkeypatch.setattr(space_app, "QUICKSTART_MODEL", tmp_path / "outputs" / "tiny-grpo")
    with pytest.raises(space_app.UserError, match="run `bash recipes/quickstart.sh` first, or set RUSTY_MODEL"):
        space_app.model_name()
    (tmp_path / "outputs" / "tiny-grpo").mkdir(parents=True)
    assert space_app.model_name() == str(tmp_path / "outputs" / "tiny-grpo")
    monkeypatch.setenv("RUSTY_MODEL", "me/rusty")
    assert space_app.model_name() == "me/rusty"


@pytest.mark.parametrize("env, says", [
    ({"RUSTY_MODEL": "outputs/no-such-model"}, "no such folder: outputs/no-such-model"),
    ({"RUSTY_MODEL": "me/x", "RUSTY_QUANTIZATION": "int4"}, "RUSTY_QUANTIZATION='int4' is not one of none, int8, 4bit"),
])
def test_a_configuration_mistake_is_one_line_on_stderr(space_app, monkeypatch, capsys, env, says):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(space_app.QUICKSTART_MODEL.parents[1])
    assert space_app.main() == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("space/app.py: ") and says in line


def test_the_spaces_quantization_choices_are_the_loaders(space_app):
    from rusty_hf.inference import QUANTIZATIONS

    assert space_app.QUANTIZATIONS == QUANTIZATIONS
