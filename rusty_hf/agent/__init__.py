"""rusty_hf.agent: Rusty acting on a work dir -- the terminal agent and the multi-turn RL environment.

- `rusty_hf.agent.workspace`: ``Workspace`` (safe EDIT paths; CMDs sandboxed on a copy, changes copied back)
- `rusty_hf.agent.session`: ``AgentSession``, the loop generate -> parse_action -> correct/retry -> execute
- `rusty_hf.agent.terminal`: the ``rusty-terminal`` command line
- `rusty_hf.agent.tool_calling`: Rusty's actions as chat-template tool calls (for TRL)
- `rusty_hf.agent.env`: ``CodingEnv`` for ``GRPOTrainer(environment_factory=CodingEnv)``

Import from the submodules (``from rusty_hf.agent.env import CodingEnv``); this package imports
nothing itself, so ``rusty_hf.agent.workspace`` stays usable without torch being loaded.
"""
