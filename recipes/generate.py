"""Chat with a saved Rusty checkpoint once: print the prompt, the reply, and whether it is a valid action.

    python recipes/generate.py --model outputs/tiny-sft --prompt "list the files here"

Loads with `rusty_hf.inference.load_model` (trust_remote_code, so a folder pulled from the Hub runs its
own code; a missing or damaged folder is one line on stderr), applies the chat template, and decodes
greedily with the recurrent state.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import argparse
import json
import sys

import torch

from rusty_hf.tokenizer import generation_eos_ids
from rusty_hf.errors import UserError, run_cli


def reply(model, tokenizer, prompt: str, max_new_tokens: int = 128) -> str:
    messages = [{"role": "user", "content": prompt}]
    inputs = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(
            **inputs, max_new_tokens=max_new_tokens, do_sample=False, eos_token_id=generation_eos_ids(tokenizer)
        )
    return tokenizer.decode(out[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True).strip()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="outputs/tiny-sft", help="checkpoint folder (save_pretrained) or Hub id")
    parser.add_argument("--prompt", action="append", help="user message (repeatable; default: three examples)")
    parser.add_argument("--max_new_tokens", type=int, default=128, help="generation budget per reply")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    return parser


def run(args: argparse.Namespace) -> None:
    if args.max_new_tokens < 1:
        raise UserError(f"--max_new_tokens must be >= 1, got {args.max_new_tokens}")
    from rusty_hf.inference import load_model, load_tokenizer_for
    from rusty_hf.inference.warmup import quiet_loading

    quiet_loading()
    model = load_model(args.model, trust_remote_code=True)  # checks the folder first: one line when it is wrong
    tokenizer = load_tokenizer_for(model, args.model, trust_remote_code=True)
    for prompt in args.prompt or ["list the files here", "run the tests", "what does `git status` show?"]:
        text = reply(model, tokenizer, prompt, args.max_new_tokens)
        try:
            valid = isinstance(json.loads(text), dict)
        except json.JSONDecodeError:
            valid = False
        print(f"user> {prompt}\nrusty> {text}\n        ({'valid JSON action' if valid else 'not valid JSON'})")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_cli("generate.py", lambda: run(args), argv)


if __name__ == "__main__":
    sys.exit(main())
