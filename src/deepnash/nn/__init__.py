"""The DeepNash network: pyramid U-Net torso, deployment/selection/displacement/value heads, presets."""

from .config import NET_VERSIONS, PRESETS, NetConfig, get_preset
from .network import DEPLOY, DISPLACE, SELECT, WDL, DeepNashNet, masked_log_policy, parameter_count, phases
from .pyramid import ConvResBlock, DeconvResBlock, Pyramid

__all__ = [
    "DEPLOY", "DISPLACE", "NET_VERSIONS", "PRESETS", "SELECT", "ConvResBlock", "DeconvResBlock", "DeepNashNet", "NetConfig",
    "Pyramid", "WDL", "get_preset", "masked_log_policy", "parameter_count", "phases",
]
