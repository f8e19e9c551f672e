"""The information state: what one player knows, and everything computed from it alone.

Below the agents and the test-time layer, above the rules and the
environment.  ``view`` holds ``PlayerView`` (a player's information state) and
``MoveRecord`` (the public history); ``beliefs`` the closed-form type
distributions that public information implies; ``setup_stats`` people's
deployment statistics; ``determinize`` complete states consistent with a
view (sampled, or in a fixed order) loaded through ``BatchState.load``;
``observe`` the 82-plane observation of a view, as ``VectorEnv`` encodes it.
"""

from .view import UNKNOWN, MoveRecord, PlayerView, push_recorded

__all__ = ["UNKNOWN", "MoveRecord", "PlayerView", "push_recorded"]
