"""The DeepNash network: pyramid U-Net torso, deployment/selection/displacement/value heads, presets."""

from .config import PRESETS, NetConfig, get_preset
from .network import DEPLOY, DISPLACE, SELECT, DeepNashNet, masked_log_policy, parameter_count, phases
from .pyramid import ConvResBlock, DeconvResBlock, Pyramid

__all__ = [
    "DEPLOY", "DISPLACE", "PRESETS", "SELECT", "ConvResBlock", "DeconvResBlock", "DeepNashNet", "NetConfig",
    "Pyramid", "get_preset", "masked_log_policy", "parameter_count", "phases",
]
