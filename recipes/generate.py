"""Chat with a saved Rusty checkpoint once: print the prompt, the reply, and whether it is a valid action.

    python recipes/generate.py --model outputs/tiny-sft --prompt "list the files here"

Loads with AutoModelForCausalLM (trust_remote_code, so a folder pulled from the Hub works without
rusty_hf), applies the chat template, and decodes greedily with the recurrent state.
"""

from __future__ import annotations

from rusty_hf.upstream_notices import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import argparse
import json

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from rusty_hf.tokenizer import generation_eos_ids
from rusty_hf.training import is_missing_local_folder


def reply(model, tokenizer, prompt: str, max_new_tokens: int = 96) -> str:
    messages = [{"role": "user", "content": prompt}]
    inputs = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(
            **inputs, max_new_tokens=max_new_tokens, do_sample=False, eos_token_id=generation_eos_ids(tokenizer)
        )
    return tokenizer.decode(out[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="outputs/tiny-sft", help="checkpoint folder or Hub id")
    parser.add_argument("--prompt", action="append", help="user message (repeatable)")
    parser.add_argument("--max_new_tokens", type=int, default=96)
    args = parser.parse_args()
    if is_missing_local_folder(args.model):
        raise SystemExit(f"no checkpoint at {args.model}: train one first (python recipes/sft.py --config recipes/tiny/sft.yaml)")
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, trust_remote_code=True).eval()
    for prompt in args.prompt or ["list the files here", "run the tests", "what does `git status` show?"]:
        text = reply(model, tokenizer, prompt, args.max_new_tokens)
        try:
            valid = isinstance(json.loads(text), dict)
        except json.JSONDecodeError:
            valid = False
        print(f"user> {prompt}\nrusty> {text}\n        ({'valid JSON action' if valid else 'not valid JSON'})")


if __name__ == "__main__":
    main()
