"""Run a recipe under accelerate's FSDP2 on CPU processes (gloo), for the launch tests only.

    accelerate launch --config_file <fsdp.yaml, mixed_precision no> --num_processes 2 tests/fsdp_on_cpu.py recipes/sft.py --config ...

accelerate (1.15) turns FSDP on only for GPU-like process groups: `AcceleratorState` keeps a CPU run
(`use_cpu: true`, gloo) as MULTI_CPU and drops the FSDP plugin, so a CPU launch of fsdp.yaml trains plain
data parallel (rusty_hf refuses that launch; see rusty_hf/training/sharding.py). torch's `fully_shard` itself
runs on a CPU mesh over gloo. This wrapper changes that one decision -- after `AcceleratorState.__init__`,
a MULTI_CPU state that was handed an FSDP plugin becomes FSDP with it -- and runs the recipe unchanged, so
the tests cover everything else GPUs run: accelerate's wrapping (`fsdp2_prepare_model`), the sharded
forward/backward with TRL's fused LM head and PPO's value head, the optimizer, sharded checkpoints
(torch.distributed.checkpoint) and the final full-state-dict save.
"""

import runpy
import sys

import accelerate.state
from accelerate.utils import DistributedType

_accelerator_state_init = accelerate.state.AcceleratorState.__init__


def _fsdp_on_cpu(self, *args, fsdp_plugin=None, **kwargs):
    _accelerator_state_init(self, *args, fsdp_plugin=fsdp_plugin, **kwargs)
    if fsdp_plugin is not None and self.distributed_type == DistributedType.MULTI_CPU:
        self.distributed_type = DistributedType.FSDP
        self.fsdp_plugin = fsdp_plugin
        accelerate.state.PartialState._shared_state["distributed_type"] = DistributedType.FSDP


accelerate.state.AcceleratorState.__init__ = _fsdp_on_cpu

if __name__ == "__main__":
    script, sys.argv = sys.argv[1], sys.argv[1:]
    runpy.run_path(script, run_name="__main__")
