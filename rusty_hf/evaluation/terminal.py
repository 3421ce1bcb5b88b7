"""Evaluate a Rusty checkpoint on held-out terminal requests: does what it does follow from the request?

Each held-out request (``rusty_hf.data.terminal.dataset.heldout_requests``) is answered as
``rusty-terminal`` answers it: the Rusty persona as the system prompt, greedy decoding under the
protocol's constrained decoding, tool results rendered by the tool-aware chat template. The first
action is judged by executing it on a fresh copy of the request's fixture (``checks.judge``); a
multi-turn request continues, the command's real output going back to the model, until it answers
MSG or ``max_steps`` actions have run, and the episode succeeds when that MSG states the fact asked for.

Reported per part (``seen_values``: held-out phrasings on training values; ``new_values``: every
argument new; ``new_intents``: intents never trained, apart) and per intent, as mean ± standard error:
first-action success, episode success (multi-turn requests), the right action type, protocol validity.
``split="blind"`` plays the blind suite instead (`rusty_hf.data.terminal.blind`: requests written without
sight of the training phrasings), in parts ``catalogue`` and ``outside`` (what the catalogue does not
cover, reported apart); it is only measured, never tuned on.

    from rusty_hf.evaluation.terminal import evaluate_terminal, format_terminal_table
    report = evaluate_terminal(model, tokenizer, cache_dir="outputs/terminal_fixtures")
    print(format_terminal_table(report))
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.data.terminal.blind import BLIND_VERSION, load_blind
from rusty_hf.data.terminal.blind import PARTS as BLIND_PARTS
from rusty_hf.data.terminal.checks import Verdict, judge, observe
from rusty_hf.data.terminal.dataset import PARTS, Request, dev_requests, heldout_requests
from rusty_hf.data.terminal.fixtures import materialize, workspace_paths
from rusty_hf.data.terminal.intents import HELD_OUT_INTENTS
from rusty_hf.evaluation.stats import mean_and_stderr
from rusty_hf.inference.decoding import reply_processors, reply_settings
from rusty_hf.protocol import Action, ProtocolError, parse_action
from rusty_hf.protocol.pointers import mark_conversation, strip_markers, uses_pointers
from rusty_hf.sandbox import require_isolation

MAX_STEPS = 3
SPLITS = ("heldout", "dev", "blind")
APART = ("new_intents", "outside")  # parts kept out of "overall": intents never trained, requests outside the catalogue
DEFAULT_MAX_NEW_TOKENS = 128  # the longest reply training writes: a closing that states a short output whole (108 tokens)


def generate_replies(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    conversations: Sequence[list[dict]],
    *,
    batch_size: int = 16,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    constrained: bool = True,
    copy: bool = True,
    workspace_names: Sequence[list[str]] | None = None,
    workspace_roots: Sequence[str | Path] | None = None,
) -> list[str]:
    """One greedy reply per conversation, batched with left padding, decoded as the terminal decodes
    (`rusty_hf.inference.decoding`: the same processors and settings).

    ``copy`` adds the copy bias (`rusty_hf.protocol.copying`) for the names in each conversation's last
    request and the command outputs since, and those that ``workspace_names`` (per conversation: the
    paths in its work dir) confirm, as rusty-terminal does (constrained decoding only); with
    ``workspace_roots`` (per conversation: its work dir), sed replaces a quoted value the files hold.
    """
    tokenizer.padding_side = "left"
    pointing = uses_pointers(model)
    if pointing:  # a pointer model reads marked requests; its replies come back as what runs (`protocol.pointers`)
        conversations = [mark_conversation(c) for c in conversations]
    order = sorted(range(len(conversations)), key=lambda i: len(json.dumps(conversations[i])))  # less padding
    replies: list[str] = [""] * len(conversations)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        texts = [tokenizer.apply_chat_template(conversations[i], add_generation_prompt=True, tokenize=False) for i in batch]
        inputs = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        processors = reply_processors(tokenizer, [conversations[i] for i in batch], max_new_tokens=max_new_tokens,
                                      constrained=constrained, copy=copy,
                                      workspace_names=[workspace_names[i] for i in batch] if workspace_names else None,
                                      workspace_roots=[workspace_roots[i] for i in batch] if workspace_roots else None)  # fmt: skip
        with torch.no_grad():
            out = model.generate(**inputs, **reply_settings(tokenizer, processors, max_new_tokens=max_new_tokens))
        decoded = tokenizer.batch_decode(out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        for i, text in zip(batch, decoded):
            replies[i] = strip_markers(text).strip() if pointing else text.strip()
    return replies


def _parse(text: str) -> Action | None:
    try:
        return parse_action(text)
    except ProtocolError:
        return None


def run_episodes(model, tokenizer, requests: Sequence[Request], cache_dir: str | Path, *, batch_size: int = 16,
                 max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS, max_steps: int = MAX_STEPS, constrained: bool = True,
                 copy: bool = True, workers: int = 2) -> list[dict]:  # fmt: skip
    """Play every request: the first action judged, multi-turn ones continued until a MSG. One record each."""
    tokenizer = enable_tool_calling(tokenizer)
    roots = [materialize(r.fixture, cache_dir) for r in requests]
    conversations = [r.row()["prompt"] for r in requests]
    names = [workspace_paths(r.fixture) for r in requests]
    records = [{"intent": r.intent, "part": r.part, "request": r.text, "multi_turn": r.multi_turn, "replies": [],
                "valid": [], "first_ok": False, "episode_ok": False, "reason": ""} for r in requests]  # fmt: skip
    live = list(range(len(requests)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for step in range(max_steps):
            replies = generate_replies(model, tokenizer, [conversations[i] for i in live], batch_size=batch_size,
                                       max_new_tokens=max_new_tokens, constrained=constrained, copy=copy,
                                       workspace_names=[names[i] for i in live],
                                       workspace_roots=[roots[i] for i in live])  # fmt: skip
            actions = [_parse(text) for text in replies]

            def judged(job) -> Verdict:
                i, action = job
                request = requests[i]
                if step == 0:
                    return judge(request.case.first, action, roots[i])
                if action is not None and action.action == "MSG":
                    return judge(request.case.final, action, roots[i])
                if action is None:
                    return Verdict(False, "no valid action")
                return Verdict(False, "still acting", observe(action, roots[i]))  # the episode goes on

            verdicts = list(pool.map(judged, zip(live, actions)))
            still = []
            for i, text, action, verdict in zip(live, replies, actions, verdicts):
                record, request = records[i], requests[i]
                record["replies"].append(text)
                record["valid"].append(action is not None)
                if step == 0:
                    record["first_ok"], record["reason"] = verdict.ok, verdict.reason
                    record["action_type_ok"] = action is not None and action.action == request.case.actions[0]["action"]
                    if not request.multi_turn:
                        record["episode_ok"] = verdict.ok
                if not request.multi_turn or action is None:
                    continue
                if action.action == "MSG":
                    final = verdict if step > 0 else judge(request.case.final, action, roots[i])  # answered unseen
                    record["episode_ok"], record["final_reason"] = final.ok, final.reason
                    continue
                conversations[i] = conversations[i] + [
                    {"role": "assistant", "content": action.to_json()},
                    {"role": "tool", "name": action.action, "content": verdict.observation or ""},
                ]
                still.append(i)
            live = still
            if not live:
                break
    return records


def _rate(records: list[dict], key: str) -> dict:
    if not records:
        return {"mean": None, "stderr": None, "n": 0}
    mean, stderr = mean_and_stderr([float(r[key]) for r in records])
    return {"mean": mean, "stderr": stderr, "n": len(records)}


def summarize(records: list[dict]) -> dict:
    """First-action and episode success, action type and validity, per part and intent, mean ± SE."""
    def block(rows: list[dict]) -> dict:
        return {
            "first_action_success": _rate(rows, "first_ok"),
            "episode_success": _rate([r for r in rows if r["multi_turn"]], "episode_ok"),
            "action_type_accuracy": _rate(rows, "action_type_ok"),
            "protocol_validity": _rate([{"v": v} for r in rows for v in r["valid"]], "v"),
        }

    trained = [r for r in records if r["part"] not in APART and r["intent"] not in HELD_OUT_INTENTS]
    present = {r["part"] for r in records}
    parts = BLIND_PARTS if present & set(BLIND_PARTS) else PARTS + (("dev",) if "dev" in present else ())
    by_intent = defaultdict(list)
    for r in records:
        by_intent[r["intent"]].append(r)
    return {
        "overall": block(trained),
        "parts": {part: block([r for r in records if r["part"] == part]) for part in parts},
        "intents": {name: {"part": rows[0]["part"] if len({r["part"] for r in rows}) == 1 else "trained", **block(rows)}
                    for name, rows in sorted(by_intent.items())},
    }  # fmt: skip


def _split_requests(split: str, seed: int, per_intent: dict[str, int] | None,
                    dev_per_intent: int) -> tuple[list[str], list[Request], str]:  # fmt: skip
    """(ids, requests, description) of a split; ids only for the blind suite, whose requests have them."""
    if split == "blind":
        blind = load_blind()
        described = f"{BLIND_VERSION}: requests written blind to the training phrasings (catalogue; outside it, apart)"
        return list(blind), list(blind.values()), described
    if split == "dev":
        described = f"dev: training phrasings and words on unused fixtures, {dev_per_intent} per trained intent"
        return [], dev_requests(per_intent=dev_per_intent, seed=seed), described
    return [], heldout_requests(seed=seed, per_intent=per_intent), "held-out phrasings (seen and new values) + held-out intents"


def evaluate_terminal(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, cache_dir: str | Path, *,
                      seed: int = 0, per_intent: dict[str, int] | None = None, batch_size: int = 16,
                      max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS, constrained: bool = True,
                      copy: bool = True, split: str = "heldout", dev_per_intent: int = 6) -> dict:  # fmt: skip
    """The terminal suite: ``settings``, the summary (``overall``, ``parts``, ``intents``) and every ``sample``.

    ``split`` "dev" plays `dataset.dev_requests` instead (training phrasings and words on fixtures no
    training row uses, ``dev_per_intent`` per trained intent, part "dev"): where decoding settings are
    tuned, so the held-out split stays untouched until a result is reported. ``split`` "blind" plays the
    blind suite (parts "catalogue" and "outside"; each sample keeps its request's ``id``): measured, never
    tuned on.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    require_isolation()  # the model's commands run in the sandbox: without bubblewrap, one line naming the fix
    ids, requests, described = _split_requests(split, seed, per_intent, dev_per_intent)
    model.eval()
    records = run_episodes(model, tokenizer, requests, cache_dir, batch_size=batch_size,
                           max_new_tokens=max_new_tokens, constrained=constrained, copy=copy)  # fmt: skip
    for record, request_id in zip(records, ids):
        record["id"] = request_id
    settings = {"suite": "terminal", "split": described,
                "requests": len(requests), "seed": seed, "decoding": "greedy", "temperature": 0.0,
                "constrained": constrained, "copy_bias": copy and constrained, "max_new_tokens": max_new_tokens, "max_steps": MAX_STEPS}  # fmt: skip
    return {"settings": settings, **summarize(records), "samples": records}


def _cell(stat: dict) -> str:
    return "-" if stat["mean"] is None else f"{stat['mean']:.3f} ± {stat['stderr']:.3f} (n={stat['n']})"


def format_terminal_table(report: dict) -> str:
    """A Markdown table: one row per part, then overall."""
    lines = ["| part | first-action success | episode success | action type | protocol validity |", "|---|---|---|---|---|"]
    for name, block in [*report["parts"].items(), ("overall (trained intents)", report["overall"])]:
        if not block["protocol_validity"]["n"]:  # a part this split does not have
            continue
        lines.append(f"| {name} | {_cell(block['first_action_success'])} | {_cell(block['episode_success'])} | "
                     f"{_cell(block['action_type_accuracy'])} | {_cell(block['protocol_validity'])} |")  # fmt: skip
    return "\n".join(lines)


def compare_terminal(before: dict, after: dict) -> dict:
    """``after`` − ``before`` on the same requests, paired: first-action and episode success per part and
    overall (trained intents), each as a mean difference with its standard error."""
    a, b = before["samples"], after["samples"]
    if [(s["intent"], s["request"]) for s in a] != [(s["intent"], s["request"]) for s in b]:
        raise ValueError("the two terminal reports were not run on the same requests (another seed or version?)")

    def diff(select, key: str) -> dict:
        pairs = [(x[key], y[key]) for x, y in zip(a, b) if select(x) and (key != "episode_ok" or x["multi_turn"])]
        if not pairs:
            return {"mean": None, "stderr": None, "n": 0}
        mean, stderr = mean_and_stderr([float(y) - float(x) for x, y in pairs])
        return {"mean": mean, "stderr": stderr, "n": len(pairs)}

    groups = {"overall (trained intents)": lambda s: s["part"] not in APART and s["intent"] not in HELD_OUT_INTENTS,
              **{part: (lambda s, p=part: s["part"] == p) for part in after["parts"]}}  # fmt: skip
    return {name: {"first_action_success": diff(pick, "first_ok"), "episode_success": diff(pick, "episode_ok")}
            for name, pick in groups.items()}  # fmt: skip


def format_terminal_comparison(comparison: dict) -> str:
    lines = ["| part | first-action success, after − before | episode success, after − before |", "|---|---|---|"]
    for name, row in comparison.items():
        cells = [("-" if s["mean"] is None else f"{s['mean']:+.3f} ± {s['stderr']:.3f} (n={s['n']})")
                 for s in (row["first_action_success"], row["episode_success"])]  # fmt: skip
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


__all__ = [
    "APART", "DEFAULT_MAX_NEW_TOKENS", "MAX_STEPS", "SPLITS", "compare_terminal", "evaluate_terminal",
    "format_terminal_comparison", "format_terminal_table", "generate_replies", "run_episodes", "summarize",
]
