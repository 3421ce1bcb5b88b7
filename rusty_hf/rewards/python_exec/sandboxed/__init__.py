"""The sandbox side of the execution reward: the files copied into every run's work dir, and nothing else.

``candidate_server.py`` imports the candidate's ``solution.py`` and answers the host's requests;
``wire.py`` is the codec both ends speak. In the sandbox they run as top-level modules of the work dir
(``import candidate_server``), compiled once on the host (`execution.sandbox_files`), with the standard
library only: nothing here may import rusty_hf. The host imports ``wire`` from this package::

    from rusty_hf.rewards.python_exec.sandboxed import wire
"""
