"""The pyramid module: a small U-Net of residual blocks that every DeepNash torso and head is made of.

Source: the DeepNash paper (arXiv version), supplementary "Neural
Implementation"; restated in ``docs/network.md``.  Spatial sizes assume the
10×10 board: the strided blocks go 10×10 → 5×5 and back.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class StridedPointwise(nn.Conv2d):
    """A 1×1 convolution with stride ``s``, computed as the unstrided 1×1 convolution of every ``s``-th
    square: the same function and parameters as ``nn.Conv2d(c_in, c_out, 1, stride=s)``.

    PyTorch 2.13's oneDNN kernel for strided 1×1 convolutions on channels-last inputs corrupts
    the heap when it runs on two or more threads with narrow layers (8 channels: the ``tiny``
    preset's heads); the unstrided kernel is sound.
    """

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__(c_in, c_out, 1, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.stride[0]
        return F.conv2d(x[:, :, ::s, ::s], self.weight, self.bias)


class StridedPointwiseTranspose(nn.ConvTranspose2d):
    """A 1×1 transposed convolution with stride ``s`` (output padding ``s - 1``), computed as an
    unstrided 1×1 convolution written to every ``s``-th square, the bias everywhere: the same
    function and parameters as ``nn.ConvTranspose2d(c_in, c_out, 1, stride=s, output_padding=s - 1)``
    (see ``StridedPointwise`` for why).

    Shapes: ``float32[N, c_in, H, W]`` → ``float32[N, c_out, sH, sW]``.
    """

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__(c_in, c_out, 1, stride=stride, output_padding=stride - 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.stride[0]
        n, _, h, w = x.shape
        y = F.conv2d(x, self.weight.transpose(0, 1))
        out = y.new_zeros(n, y.shape[1], h * s, w * s).contiguous(memory_format=torch.channels_last)
        out[:, :, ::s, ::s] = y
        return out + self.bias[None, :, None, None]


class ConvResBlock(nn.Module):
    """Convolution resblock: conv ``c_out//2`` (stride ``s``) + ReLU, conv ``c_out`` + ReLU, plus the input.

    The block's input is its *skip-out*, handed to the symmetric ``DeconvResBlock``.
    Where the block strides or changes width, the residual path gets a 1×1
    convolution (same stride, no activation) to match shapes.

    Shapes: ``float32[N, c_in, H, W]`` → ``float32[N, c_out, H/s, W/s]``.
    """

    def __init__(self, c_in: int, c_out: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out // 2, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(c_out // 2, c_out, 3, padding=1)
        self.proj = StridedPointwise(c_in, c_out, stride) if (stride != 1 or c_in != c_out) else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv2(F.relu(self.conv1(x))))
        return h + (x if self.proj is None else self.proj(x))


class DeconvResBlock(nn.Module):
    """Deconvolution resblock, the mirror of a ``ConvResBlock``.

    deconv ``c_out//2`` (stride ``s``, 3×3) + ReLU; add the symmetric skip-out
    after a 1×1 projection to ``c_out//2`` channels (no activation); deconv
    ``c_out`` (3×3) + ReLU; add the block input (through a 1×1 transposed
    convolution with the same stride where shapes change).

    The paper gives the skip's 1×1 layer the block's stride, but the skip-out
    of the symmetric convolution block is taken *before* that block strides,
    so it is already at this block's output resolution: here it is unstrided.

    Shapes: ``x: float32[N, c_in, H, W]``, ``skip: float32[N, c_skip, sH, sW]``
    → ``float32[N, c_out, sH, sW]``.
    """

    def __init__(self, c_in: int, c_out: int, c_skip: int, stride: int = 1):
        super().__init__()
        pad_out = stride - 1
        self.deconv1 = nn.ConvTranspose2d(c_in, c_out // 2, 3, stride=stride, padding=1, output_padding=pad_out)
        self.skip = nn.Conv2d(c_skip, c_out // 2, 1)
        self.deconv2 = nn.ConvTranspose2d(c_out // 2, c_out, 3, padding=1)
        self.proj = StridedPointwiseTranspose(c_in, c_out, stride) if (stride != 1 or c_in != c_out) else None

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.deconv1(x)) + self.skip(skip)
        h = F.relu(self.deconv2(h))
        return h + (x if self.proj is None else self.proj(x))


class Pyramid(nn.Module):
    """The pyramid module (paper: 1 conv, N outer, 1 strided, M inner conv blocks, then their mirrors).

    Args:
        c_in: input channels.
        channels: outer width C (paper: 256).
        inner_channels: inner width (paper: 320), used by the M inner blocks.
        outer: N, outer conv (and deconv) resblocks at 10×10.
        inner: M, inner conv (and deconv) resblocks at 5×5.

    Skip connections go from each conv resblock to its symmetric deconv resblock.

    Shapes: ``float32[N, c_in, 10, 10]`` → ``float32[N, channels, 10, 10]``.
    """

    def __init__(self, c_in: int, channels: int, inner_channels: int, outer: int, inner: int):
        super().__init__()
        if min(channels, inner_channels) < 2 or min(outer, inner) < 0:
            raise ValueError(
                f"pyramid needs channels >= 2 and non-negative block counts, got channels={channels}, "
                f"inner_channels={inner_channels}, outer={outer}, inner={inner}"
            )
        c, ci = channels, inner_channels
        self.stem = nn.Conv2d(c_in, c, 3, padding=1)
        # (c_in, c_out, stride) of each conv block, input to output; the deconv blocks mirror them.
        shapes = [(c, c, 1)] * outer + [(c, c, 2)] + [(c if i == 0 else ci, ci, 1) for i in range(inner)]
        self.down = nn.ModuleList(ConvResBlock(a, b, s) for a, b, s in shapes)
        self.up = nn.ModuleList(DeconvResBlock(b, a, a, s) for a, b, s in reversed(shapes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.stem(x))
        skips = []
        for block in self.down:
            skips.append(h)
            h = block(h)
        for block, skip in zip(self.up, reversed(skips)):
            h = block(h, skip)
        return h
