"""R-NaD, game-agnostic: config, schedule, v-trace, losses, projection, learner, normal-form R-NaD."""

from .config import AdamConfig, FineTuneConfig, NeuRDConfig, RNaDConfig, ScheduleConfig
from .learner import NETWORK_NAMES, RNaDLearner
from .projection import discretise, project, threshold
from .schedule import SchedulePoint, schedule_point
from .trajectory import Trajectory
from .vtrace import VTraceTargets, v_trace

__all__ = [
    "AdamConfig", "FineTuneConfig", "NeuRDConfig", "RNaDConfig", "ScheduleConfig", "NETWORK_NAMES",
    "RNaDLearner", "discretise", "project", "threshold", "SchedulePoint", "schedule_point",
    "Trajectory", "VTraceTargets", "v_trace",
]
