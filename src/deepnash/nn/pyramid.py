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
        y = F.conv2d(x, self.weight.transpose(0, 1), self.bias)
        out = self.bias.expand(n, h * s, w * s, -1).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
        out[:, :, ::s, ::s] = y
        return out


#: Batches smaller than this take oneDNN's own strided transposed kernel, faster there.
SUBPIXEL_MIN_ROWS = 8


class _KeptKernel:
    """Keeps a kernel derived from a layer's weight between calls without autograd (evaluation,
    look-ahead), until the weight changes: its version counter, which every in-place update bumps,
    and its storage, which loading a state dict or converting the dtype replaces."""

    _kernel: tuple[tuple[int, int], torch.Tensor, torch.Tensor] | None = None

    def _kept(self, weight: torch.Tensor, derive) -> tuple[torch.Tensor, torch.Tensor]:
        key = (weight._version, weight.data_ptr())
        if not torch.is_grad_enabled() and self._kernel is not None and self._kernel[0] == key:
            return self._kernel[1], self._kernel[2]
        kernel, bias = derive()
        if not torch.is_grad_enabled():
            self._kernel = (key, kernel, bias)
        return kernel, bias


class FlippedConvTranspose(_KeptKernel, nn.ConvTranspose2d):
    """A stride-1 ``k``×``k`` transposed convolution with padding ``p``, computed as the ordinary
    convolution with the kernel flipped and its channel axes swapped, padding ``k - 1 - p``: the same
    function and parameters as ``nn.ConvTranspose2d(c_in, c_out, k, padding=p)``.  In the profiler
    oneDNN's transposed kernels ran the ``small`` preset's layers 1.2-1.5x slower than its ordinary
    ones (one thread, 48 positions, bfloat16); a whole policy call gains about 2.5%.

    Shapes: ``float32[N, c_in, H, W]`` → ``float32[N, c_out, H + k - 1 - 2p, W + k - 1 - 2p]``.
    """

    def __init__(self, c_in: int, c_out: int, kernel_size: int, padding: int = 0):
        super().__init__(c_in, c_out, kernel_size, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kernel, bias = self._kept(self.weight, lambda: (
            self.weight.transpose(0, 1).flip(2, 3).contiguous(memory_format=torch.channels_last), self.bias))
        k, p = self.kernel_size[0], self.padding[0]
        return F.conv2d(x, kernel, bias, padding=k - 1 - p)


class SubPixelConvTranspose(_KeptKernel, nn.ConvTranspose2d):
    """A 3×3 transposed convolution with stride ``s >= 2``, padding 1 and output padding ``s - 1``,
    computed as a 2×2 convolution to ``s * s * c_out`` channels followed by a pixel shuffle (the
    "sub-pixel" form): the same function and parameters as ``nn.ConvTranspose2d(c_in, c_out, 3,
    stride=s, padding=1, output_padding=s - 1)``.

    Output square ``s*m + a`` (per axis) takes input squares ``m`` and ``m + 1`` through kernel
    taps ``a + 1`` and ``a + 1 - s`` (where those lie in 0..2), so each of the ``s * s`` output
    phases is a 2×2 convolution over the input padded by one square at its far edges.  On narrow
    layers oneDNN's strided transposed kernel spends most of its time on the zeros it
    interleaves: the sub-pixel form runs the tiny preset's strided deconvolutions 1.4-2.4x
    faster on batches of 16-64 positions (one thread); below ``SUBPIXEL_MIN_ROWS`` rows torch's
    own kernel is faster and runs instead.  Without autograd the derived kernel is kept (``_KeptKernel``).

    Shapes: ``float32[N, c_in, H, W]`` → ``float32[N, c_out, sH, sW]``.
    """

    def __init__(self, c_in: int, c_out: int, stride: int):
        if stride < 2:
            raise ValueError(f"SubPixelConvTranspose needs stride >= 2, got {stride}")
        super().__init__(c_in, c_out, 3, stride=stride, padding=1, output_padding=stride - 1)
        taps = [[a + 1 - stride * d if 0 <= a + 1 - stride * d <= 2 else 3 for d in (0, 1)] for a in range(stride)]
        self.register_buffer("_taps", torch.tensor(taps), persistent=False)  # [s, 2]; 3: a zero tap

    def _derived(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The 2×2 kernel ``[s*s*c_out, c_in, 2, 2]`` (channel ``c*s*s + a*s + b`` for output phase
        ``(a, b)``, as ``pixel_shuffle`` reads them) and its bias."""
        w, s, t = self.weight, self.stride[0], self._taps

        def derive() -> tuple[torch.Tensor, torch.Tensor]:
            padded = F.pad(w, (0, 1, 0, 1))  # [c_in, c_out, 4, 4]: index 3 is a zero tap
            k = padded[:, :, t[:, None, :, None], t[None, :, None, :]]  # [c_in, c_out, a, b, dy, dx]
            return k.permute(1, 2, 3, 0, 4, 5).reshape(-1, w.shape[0], 2, 2), self.bias.repeat_interleave(s * s)

        return self._kept(w, derive)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[0] < SUBPIXEL_MIN_ROWS:
            return super().forward(x)
        kernel, bias = self._derived()
        return F.pixel_shuffle(F.conv2d(F.pad(x, (0, 1, 0, 1)), kernel, bias), self.stride[0])


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
        self.deconv1 = (SubPixelConvTranspose(c_in, c_out // 2, stride) if stride > 1
                        else FlippedConvTranspose(c_in, c_out // 2, 3, padding=1))
        self.skip = nn.Conv2d(c_skip, c_out // 2, 1)
        self.deconv2 = FlippedConvTranspose(c_out // 2, c_out, 3, padding=1)
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
