"""How an agent that is not ours (an external program) fails a game."""

from __future__ import annotations

#: Result codes of the UCC 2012 manager (``docs/ucc.md``) that a failing side receives.
FAILURE_CODES = ("ILLEGAL", "BAD_SETUP", "TIMEOUT", "CRASH", "BAD_RESPONSE", "SURRENDER")


class AgentFailure(RuntimeError):
    """An agent could not go on: it crashed, fell silent, answered nonsense, set up badly or surrendered.

    The referee turns it into a lost game for that agent and records ``code``
    (one of ``FAILURE_CODES``) and ``reason``.
    """

    def __init__(self, code: str, reason: str):
        if code not in FAILURE_CODES:
            raise ValueError(f"unknown failure code {code!r}; expected one of {FAILURE_CODES}")
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
