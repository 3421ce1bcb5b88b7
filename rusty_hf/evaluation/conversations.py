"""Play the conversation suite: several requests in a row, as a user types them into ``rusty-terminal``.

Each session (`rusty_hf.data.terminal.blind.conversations`) keeps one chat and one work dir. Per turn the
user's request joins the chat; the model acts (decoded as the terminal decodes: persona, constrained decoding,
copy bias) until it answers MSG or ``max_steps`` actions have run; each CMD and EDIT really changes the
session's work dir, and its output goes back to the model. A turn is **done right** when its first action
passes its check (executed on the work dir as it is) and its closing MSG is true: it passes the turn's final
check, states only numbers the session showed where that check names none (`shown_numbers`), after a command
names no file the session did not show (`invented_name`: "It shows: torch.py" after an ``ls`` of app.py), and
repeats no phrase (three words) more than three times. ``CLOSING_RULES`` says which of these a report applied.

The same turns are also played **alone**: each from a fresh chat on the repository as the reference answers
of the earlier turns leave it, so "later requests go worse" is a paired difference, turn by turn.

    from rusty_hf.evaluation.conversations import evaluate_conversations, format_conversation_table
    report = evaluate_conversations(model, tokenizer, cache_dir="outputs/terminal_fixtures")
    print(format_conversation_table(report))
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from transformers import PreTrainedModel, PreTrainedTokenizerBase

from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.data.terminal.blind.conversations import CONVERSATIONS_FILE, Session, apply_action, load_conversations
from rusty_hf.data.terminal.checks import Verdict, fixture_files, judge, numbers
from rusty_hf.data.terminal.fixtures import listed_paths, workspace_paths
from rusty_hf.evaluation.stats import mean_and_stderr
from rusty_hf.evaluation.terminal import DEFAULT_MAX_NEW_TOKENS, MAX_STEPS, _parse, _rate, generate_replies
from rusty_hf.inference.decoding import MAX_PHRASE_REPEATS
from rusty_hf.protocol.copying import tool_status
from rusty_hf.protocol.constrained import PHRASE_WORDS
from rusty_hf.sandbox import require_isolation
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT



def repeated_phrase(text: str, words: int = PHRASE_WORDS) -> tuple[str, int]:
    """The reply's most repeated run of ``words`` words (case-folded) and how often it occurs."""
    tokens = re.findall(r"\S+", text.lower())
    runs = Counter(tuple(tokens[i : i + words]) for i in range(len(tokens) - words + 1))
    if not runs:
        return "", 0
    phrase, count = runs.most_common(1)[0]
    return " ".join(phrase), count


CLOSING_RULES = "v2: a closing after a command names no file the session did not show (v1: numbers only)"
# a name as a command takes it: a letter, and a `.`, `/` or `_` inside ("notes.txt", "src/lib.rs", "run_all")
_NAME_IN_TEXT = re.compile(r"[A-Za-z0-9_./-]+")


def invented_name(message: str, shown: list[str]) -> str | None:
    """The first file-like name of ``message`` that none of ``shown`` (the session's requests, outputs and
    work-dir paths) holds, or None."""
    for match in _NAME_IN_TEXT.finditer(message):
        word = match.group().strip("./-")
        if re.search(r"[A-Za-z]", word) and re.search(r"[._/]", word) and not any(word in text for text in shown):
            return word
    return None


def _named_numbers(check) -> set[str]:
    """The numbers a message check itself names (``number``, digits among ``all_of`` / ``none_of``)."""
    if check is None:
        return set()
    needles = [check.number, *(n for group in check.all_of for n in group), *check.none_of]
    return {n for n in needles if n and n.isdigit()}


def shown_numbers(requests: list[str], outputs: list[str], turn_outputs: list[str]) -> set[str]:
    """What a closing message may state without a check naming it: the numbers the session's requests hold
    (``4th`` counts as 4), those its command outputs printed, and how many lines one of this turn's outputs listed."""
    seen = {n for text in (*requests, *outputs) for n in numbers(text)}
    seen |= {m for text in requests for m in re.findall(r"\b(\d+)(?:st|nd|rd|th)\b", text)}
    for text in turn_outputs:
        listed = [line for line in text.splitlines() if line.strip() and not line.startswith("[")]
        seen.add(str(len(listed)))
    return seen


def closing_verdict(message: str, check, root: Path, shown: set[str], action, *, judge_check: bool = True,
                    shown_texts: list[str] | None = None) -> Verdict:  # fmt: skip
    """The closing MSG: its check (if ``judge_check``), no invented number or name, no phrase more than three times.

    Where ``check`` names numbers (the suite says which are true), it decides about numbers; elsewhere every
    number the message states must be one of ``shown`` (`shown_numbers`). With ``shown_texts`` (after a command:
    the session's requests, outputs and work-dir paths), each file-like name it states is in one of them."""
    if judge_check and check is not None:
        verdict = judge(check, action, root)
        if not verdict.ok:
            return verdict
    if not _named_numbers(check):
        invented = [n for n in numbers(message) if n not in shown]
        if invented:
            return Verdict(False, f"states {invented[0]}, which no request or output of the session showed")
    name = invented_name(message, shown_texts) if shown_texts is not None else None
    if name is not None:
        return Verdict(False, f"names {name}, which no request, output or path of the session showed")
    phrase, count = repeated_phrase(message)
    if count > MAX_PHRASE_REPEATS:
        return Verdict(False, f"repeats {phrase!r} {count} times")
    return Verdict(True, "ok")


def live_paths(root: Path) -> list[str]:
    """The work dir's files and folders as a listing shows them (what the copy bias confirms names with)."""
    return listed_paths(fixture_files(root))


def failure_stated(message: str, output: str | None) -> tuple[bool, bool]:
    """Whether a closing MSG follows a command that failed (its result's exit code is not 0, or it timed out), and
    whether it then states that failure: the status ("Failed: exit code 1.", as training closes one) or one of
    the lines the failing command printed ("cat: x.txt: No such file or directory.")."""
    status = tool_status(output) if output is not None else None
    if status is None or status == "Done.":
        return False, False
    lines = {line.strip().rstrip(".") for line in output.splitlines() if line.strip()}
    return True, message == status or message.strip().rstrip(".") in lines


def _new_play(key: str, root: Path, turns: list, names: list[str]) -> dict:
    """One chat on one work dir: what `_play` keeps per play as the turns go."""
    return {"key": key, "chat": [{"role": "system", "content": RUSTY_SYSTEM_PROMPT}], "root": root, "turns": turns,
            "names": names, "records": [], "requests": [], "all_outputs": [], "steps": 0}  # fmt: skip


def _play(model, tokenizer, plays: list[dict], *, batch_size: int, max_new_tokens: int, max_steps: int,
          workers: int, copy: bool, constrained: bool = True, state_dir: Path) -> None:  # fmt: skip
    """Run every play (a chat, a work dir, its turns) turn by turn, in lockstep so replies batch.

    A play is `_new_play`'s; each turn appends one record."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for k in range(max(len(p["turns"]) for p in plays)):
            live = [p for p in plays if k < len(p["turns"])]
            for p in live:
                p["chat"] = p["chat"] + [{"role": "user", "content": p["turns"][k].text}]
                p["requests"].append(p["turns"][k].text)
                p["outputs"], p["record"] = [], {"turn": k, "request": p["turns"][k].text,
                                                 "intent": p["turns"][k].intent, "part": p["turns"][k].part,
                                                 "replies": [], "valid": [], "first_ok": False, "ok": False,
                                                 "reason": "", "final_reason": "no closing MSG", "repeats": 0,
                                                 "after_a_failure": False, "states_the_failure": False}  # fmt: skip
            acting = list(live)
            for step in range(max_steps):
                if not acting:
                    break
                replies = generate_replies(model, tokenizer, [p["chat"] for p in acting], batch_size=batch_size,
                                           max_new_tokens=max_new_tokens, copy=copy, constrained=constrained,
                                           workspace_names=[p["names"] for p in acting],
                                           workspace_roots=[p["root"] for p in acting])  # fmt: skip
                actions = [_parse(text) for text in replies]

                def judged(job, step=step):
                    p, action = job
                    turn = p["turns"][k]
                    first = judge(turn.check, action, p["root"]) if step == 0 else None
                    closing = None
                    if action is not None and action.action == "MSG":
                        shown = shown_numbers(p["requests"], p["all_outputs"], p["outputs"])
                        texts = [*p["requests"], *p["all_outputs"], *p["names"]] if p["outputs"] else None
                        # a MSG-only turn's message is judged by its check (above); its numbers by what that names
                        closing = closing_verdict(action.message, turn.final or turn.check, p["root"], shown, action,
                                                  judge_check=turn.final is not None, shown_texts=texts)  # fmt: skip
                    return first, closing

                verdicts = list(pool.map(judged, zip(acting, actions)))
                still = []
                for p, text, action, (first, closing) in zip(acting, replies, actions, verdicts):
                    record = p["record"]
                    record["replies"].append(text)
                    record["valid"].append(action is not None)
                    if first is not None:
                        record["first_ok"], record["reason"] = first.ok, first.reason
                    if action is None:  # the turn ends without a closing message; the chat keeps the raw reply
                        p["chat"] = p["chat"] + [{"role": "assistant", "content": text}]
                        record["final_reason"] = "no valid action"
                        continue
                    p["chat"] = p["chat"] + [{"role": "assistant", "content": action.to_json()}]
                    if action.action == "MSG":
                        record["repeats"] = repeated_phrase(action.message)[1]
                        record["after_a_failure"], record["states_the_failure"] = failure_stated(
                            action.message, p["outputs"][-1] if p["outputs"] else None)
                        record["ok"] = record["first_ok"] and closing.ok
                        record["final_reason"] = closing.reason
                        continue
                    p["steps"] += 1
                    observation, p["root"] = apply_action(action, p["root"], state_dir / f"{p['key']}-{p['steps']}")
                    p["names"] = live_paths(p["root"])
                    p["outputs"].append(observation)
                    p["all_outputs"].append(observation)
                    p["chat"] = p["chat"] + [{"role": "tool", "name": action.action, "content": observation}]
                    still.append(p)
                acting = still
            for p in live:
                p["records"].append(p["record"])


def _in_a_row_and_alone(model, tokenizer, sessions: dict[str, Session], state_dir: Path, *, alone: bool,
                        **play) -> list[dict]:  # fmt: skip
    in_a_row = [_new_play(sid, s.states[0][1], list(s.turns), workspace_paths(s.states[0][0]))
                for sid, s in sessions.items()]  # fmt: skip
    _play(model, tokenizer, in_a_row, state_dir=state_dir, **play)
    samples = [{"session": p["key"], **r} for p in in_a_row for r in p["records"]]
    if alone:
        single = [_new_play(f"{sid}-alone{k}", root, [turn], workspace_paths(fx))
                  for sid, s in sessions.items() for k, (turn, (fx, root)) in enumerate(zip(s.turns, s.states))]  # fmt: skip
        _play(model, tokenizer, single, state_dir=state_dir, **play)
        for sample, p in zip(samples, single):
            sample["alone_ok"] = p["records"][0]["ok"]
            sample["alone_first_ok"] = p["records"][0]["first_ok"]
    return samples


def evaluate_conversations(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, cache_dir: str | Path, *,
                           batch_size: int = 16, max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
                           max_steps: int = MAX_STEPS, workers: int = 2, alone: bool = True, copy: bool = True,
                           constrained: bool = True, sessions: dict[str, Session] | None = None,
                           path: Path = CONVERSATIONS_FILE) -> dict:  # fmt: skip
    """The conversation suite in a row (and each turn alone): rates per part, the paired difference, samples.
    ``constrained`` False decodes with transformers alone (no processor: neither the grammar nor the copy bias).
    ``path``: the sessions' file (the blind suite, or `rusty_hf.data.terminal.dev`'s readable sessions)."""
    require_isolation()
    tokenizer = enable_tool_calling(tokenizer)
    sessions = sessions if sessions is not None else load_conversations(cache_dir, path)
    model.eval()
    (Path(cache_dir) / "conversations").mkdir(parents=True, exist_ok=True)
    # each call plays in folders of its own: the checks cache a command's result per (folder, command)
    state_dir = Path(tempfile.mkdtemp(prefix="played-", dir=Path(cache_dir) / "conversations"))
    try:
        samples = _in_a_row_and_alone(model, tokenizer, sessions, state_dir, alone=alone,
                                      batch_size=batch_size, max_new_tokens=max_new_tokens, max_steps=max_steps,
                                      workers=workers, copy=copy, constrained=constrained)  # fmt: skip
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    report = {"settings": {"suite": "terminal", "split": f"{Path(path).stem}: sessions of requests in a row",
                           "sessions": len(sessions), "turns": len(samples), "decoding": "greedy",
                           "constrained": constrained, "copy_bias": copy and constrained, "closing": CLOSING_RULES,
                           "max_new_tokens": max_new_tokens, "max_steps": max_steps}}  # fmt: skip
    report.update(summarize_conversations(samples))
    report["samples"] = samples
    return report


def summarize_conversations(samples: list[dict]) -> dict:
    """Per part and overall: turns done right in a row, alone, the paired difference, and the repetition rate."""
    def block(rows: list[dict]) -> dict:
        out = {"done_right": _rate(rows, "ok"), "first_action_success": _rate(rows, "first_ok"),
               "replies_over_3_repeats": _rate([{"r": r["repeats"] > MAX_PHRASE_REPEATS} for r in rows], "r"),
               "protocol_validity": _rate([{"v": v} for r in rows for v in r["valid"]], "v")}  # fmt: skip
        failed = [r for r in rows if r.get("after_a_failure")]
        out["closings_after_a_failure"] = {"n": len(failed), "stating_it": sum(r["states_the_failure"] for r in failed)}
        paired = [r for r in rows if "alone_ok" in r]
        if paired:
            out["done_right_alone"] = _rate(paired, "alone_ok")
            mean, stderr = mean_and_stderr([float(r["ok"]) - float(r["alone_ok"]) for r in paired])
            out["in_a_row_minus_alone"] = {"mean": mean, "stderr": stderr, "n": len(paired)}
        return out

    return {"overall": block(samples), "parts": {part: block([s for s in samples if s["part"] == part])
                                                 for part in ("catalogue", "outside")}}  # fmt: skip


def format_conversation_table(report: dict) -> str:
    def cell(stat: dict | None) -> str:
        return "-" if not stat or stat["mean"] is None else f"{stat['mean']:.3f} ± {stat['stderr']:.3f} (n={stat['n']})"

    lines = ["| part | done right, in a row | alone | in a row − alone | first action | replies repeating a phrase > 3x | "
             "closings after a failed command that state it |", "|---|---|---|---|---|---|---|"]
    for name, block in [*report["parts"].items(), ("overall", report["overall"])]:
        if not block["done_right"]["n"]:
            continue
        failures = block.get("closings_after_a_failure") or {"n": 0, "stating_it": 0}
        lines.append(f"| {name} | {cell(block['done_right'])} | {cell(block.get('done_right_alone'))} | "
                     f"{cell(block.get('in_a_row_minus_alone'))} | {cell(block['first_action_success'])} | "
                     f"{cell(block['replies_over_3_repeats'])} | {failures['stating_it']} of {failures['n']} |")  # fmt: skip
    return "\n".join(lines)


__all__ = ["CLOSING_RULES", "closing_verdict", "evaluate_conversations", "failure_stated", "format_conversation_table",
           "invented_name", "repeated_phrase", "shown_numbers", "summarize_conversations"]
