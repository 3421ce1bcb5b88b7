"""rusty_hf.errors: entry points drop exactly the upstream notices listed, nothing else."""

from __future__ import annotations

import logging
import subprocess
import sys
import warnings

import pytest

from rusty_hf.errors import _BNB_LOGGER, _DropMessage, quiet_upstream_notices


@pytest.fixture
def quiet():
    """Apply the filters inside a warnings context, and take the log filter off afterwards."""
    logger = logging.getLogger(_BNB_LOGGER)
    before = list(logger.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet_upstream_notices()
        yield caught
    logger.filters[:] = before


def test_trl_calls_of_the_old_checkpointing_names_are_silenced(quiet):
    from rusty_hf import TinyRWKVForCausalLM
    from tests.conftest import tiny_config

    model = TinyRWKVForCausalLM(tiny_config())
    model.gradient_checkpointing_enable()
    assert model.is_gradient_checkpointing
    model.gradient_checkpointing_disable()
    assert not [w for w in quiet if "checkpointing" in str(w.message)]


def test_other_future_warnings_still_print(quiet):
    warnings.warn("`some_other_name` is deprecated and will be removed in v6.", FutureWarning)
    assert [str(w.message) for w in quiet] == ["`some_other_name` is deprecated and will be removed in v6."]


def test_bitsandbytes_kernels_notice_is_dropped_and_its_other_warnings_kept(quiet, caplog):
    logger = logging.getLogger(_BNB_LOGGER)
    with caplog.at_level(logging.WARNING, logger=_BNB_LOGGER):
        logger.warning("Failed to load CPU gemm_4bit_forward from kernels-community: %s.", "No module named 'kernels'")
        logger.warning("some other bitsandbytes warning")
    assert [r.getMessage() for r in caplog.records] == ["some other bitsandbytes warning"]


def test_calling_twice_adds_one_log_filter(quiet):
    quiet_upstream_notices()
    assert sum(isinstance(f, _DropMessage) for f in logging.getLogger(_BNB_LOGGER).filters) == 1


def test_importing_the_module_installs_no_filter():
    # torch and transformers add filters of their own on import, so count after importing rusty_hf
    code = (
        "import logging, warnings, rusty_hf; n = list(warnings.filters); import rusty_hf.errors; "
        f"assert warnings.filters == n and not logging.getLogger({_BNB_LOGGER!r}).filters"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
