"""Play against any agent: in a terminal (rich) and in a browser (FastAPI).

``HumanMatch`` is the one authority on a game between a person and an agent;
the terminal session and the web app are thin front ends over it and show
the person only what their information state allows.
"""

from .deploy import SetupBuilder
from .match import HumanMatch

__all__ = ["HumanMatch", "SetupBuilder"]
