"""The pyramid module: a small U-Net of residual blocks that every DeepNash torso and head is made of.

Source: the DeepNash paper (arXiv version), supplementary "Neural
Implementation"; restated in ``docs/network.md``.  Spatial sizes assume the
10×10 board: the strided blocks go 10×10 → 5×5 and back.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class _Kept(dict):
    """Kernels derived from a layer's weight, by tag; a copy of the layer starts without them (a packed
    oneDNN tensor cannot be copied, and the copy's weight is another tensor anyway)."""

    def __deepcopy__(self, memo) -> "_Kept":
        return _Kept()

    def __reduce__(self):
        return _Kept, ()


def _fused_kernels_run() -> bool:
    """Whether this build's oneDNN runs a packed, fused float32 convolution (x86 builds do; a build
    without oneDNN, or whose oneDNN lacks the fused operator, does not)."""
    if not torch.backends.mkldnn.is_available():
        return False
    try:
        with torch.no_grad():
            w = torch._C._nn.mkldnn_reorder_conv2d_weight(torch.ones(1, 1, 1, 1).to_mkldnn(), [0, 0], [1, 1],
                                                           [1, 1], 1, [1, 1, 2, 2])
            y = torch.ops.mkldnn._convolution_pointwise(torch.ones(1, 1, 2, 2), w, None, [0, 0], [1, 1], [1, 1],
                                                        1, "relu", [], "")
        return bool((y == 1).all())
    except (RuntimeError, NotImplementedError):
        return False


#: oneDNN runs packed, fused float32 convolutions in this build.
FUSABLE = _fused_kernels_run()
#: ... and bfloat16 ones on this CPU (AVX-512 BF16 or newer).
FUSABLE_BF16 = FUSABLE and torch.ops.mkldnn._is_mkldnn_bf16_supported()


def fused_path(x: torch.Tensor) -> bool:
    """Whether a layer's ``fused`` call on ``x`` runs oneDNN's fused kernel: float32 activations where
    ``FUSABLE`` holds, bfloat16 ones where the CPU has them (``FUSABLE_BF16``; the search's rollouts,
    ``SearchConfig.precision``), on the CPU, without autograd."""
    if not x.is_cpu or torch.is_grad_enabled():
        return False
    return (FUSABLE and x.dtype == torch.float32) or (FUSABLE_BF16 and x.dtype == torch.bfloat16)


class _KeptKernel:
    """Keeps kernels derived from a layer's weight between calls without autograd (evaluation,
    look-ahead), until the weight changes: its version counter, which every in-place update bumps,
    and its storage, which loading a state dict or converting the dtype replaces.

    ``fused`` is the layer's call followed by ``+ add`` and a ReLU, as one oneDNN convolution with
    the weight packed once in oneDNN's own layout where ``fused_path`` holds, and as separate
    operations elsewhere.  In bfloat16 on one thread the packed, fused kernels make a search round of
    the ``small`` preset 4-7% cheaper than a convolution, an addition and a ReLU apart
    (``benchmarks/bench_search.py``; ``docs/test-time.md``, "Cost").
    """

    def _kept(self, weight: torch.Tensor, derive, tag: str = "kernel") -> tuple[torch.Tensor, torch.Tensor]:
        key = (weight._version, weight.data_ptr())
        kept = self.__dict__.setdefault("_kernels", _Kept())
        if not torch.is_grad_enabled() and tag in kept and kept[tag][0] == key:
            return kept[tag][1], kept[tag][2]
        kernel, bias = derive()
        if not torch.is_grad_enabled():
            kept[tag] = (key, kernel, bias)
        return kernel, bias

    def fused(self, x: torch.Tensor, relu: bool = False, add: torch.Tensor | None = None) -> torch.Tensor:
        """``relu(self(x) + add)``, the ReLU only with ``relu`` and the sum only with ``add`` (of the
        output's shape); the same numbers as the three operations apart, up to rounding."""
        return self._fused(x, relu, add) if fused_path(x) else self._apart(x, relu, add)

    def _apart(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        """``fused`` as the layer's call, the sum and the ReLU one after the other."""
        y = self(x) if add is None else self(x) + add
        return F.relu(y) if relu else y

    def _as_is(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The layer's own weight and bias, the kernel of an ordinary convolution."""
        return self.weight, self.bias

    def _fused(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        """``fused`` on oneDNN's path; a layer that computes its convolution otherwise overrides it."""
        return self._packed(x, self.weight, self._as_is, self.padding, self.stride, relu, add)

    def _packed(self, x: torch.Tensor, weight: torch.Tensor, derive, padding, stride, relu: bool,
                add: torch.Tensor | None) -> torch.Tensor:
        """The convolution of ``x`` by ``derive()``'s ``(kernel, bias)`` (derived from ``weight``), packed
        for oneDNN on first use, with ``add`` and the ReLU fused in."""
        padding, stride = list(padding), list(stride)

        def pack() -> tuple[torch.Tensor, torch.Tensor]:
            kernel, bias = derive()
            packed = torch._C._nn.mkldnn_reorder_conv2d_weight(
                kernel.contiguous().to_mkldnn(), padding, stride, [1, 1], 1, list(x.shape))
            return packed, bias

        kernel, bias = self._kept(weight, pack, tag="packed")
        x = x.contiguous(memory_format=torch.channels_last)
        if add is None:
            return torch.ops.mkldnn._convolution_pointwise(
                x, kernel, bias, padding, stride, [1, 1], 1, "relu" if relu else "none", [], "")
        return torch.ops.mkldnn._convolution_pointwise.binary(
            x, add.contiguous(memory_format=torch.channels_last), kernel, bias, padding, stride, [1, 1], 1,
            "add", None, "relu" if relu else None, [], None)


class Conv2d(_KeptKernel, nn.Conv2d):
    """``nn.Conv2d`` with ``fused`` (the same parameters and state-dict keys)."""


class StridedPointwise(_KeptKernel, nn.Conv2d):
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

    def _fused(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        s = self.stride[0]
        return self._packed(x[:, :, ::s, ::s], self.weight, self._as_is, (0, 0), (1, 1), relu, add)


class StridedPointwiseTranspose(_KeptKernel, nn.ConvTranspose2d):
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

    def _fused(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        return self._apart(x, relu, add)  # a 5×5 input: little to gain from packing


#: Batches smaller than this take oneDNN's own strided transposed kernel, faster there.
SUBPIXEL_MIN_ROWS = 8


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

    def _flipped(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.weight.transpose(0, 1).flip(2, 3).contiguous(memory_format=torch.channels_last), self.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kernel, bias = self._kept(self.weight, self._flipped)
        k, p = self.kernel_size[0], self.padding[0]
        return F.conv2d(x, kernel, bias, padding=k - 1 - p)

    def _fused(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        pad = self.kernel_size[0] - 1 - self.padding[0]
        return self._packed(x, self.weight, self._flipped, (pad, pad), (1, 1), relu, add)


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

    def _derive(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The 2×2 kernel ``[s*s*c_out, c_in, 2, 2]`` (channel ``c*s*s + a*s + b`` for output phase
        ``(a, b)``, as ``pixel_shuffle`` reads them) and its bias."""
        w, s, t = self.weight, self.stride[0], self._taps
        padded = F.pad(w, (0, 1, 0, 1))  # [c_in, c_out, 4, 4]: index 3 is a zero tap
        k = padded[:, :, t[:, None, :, None], t[None, :, None, :]]  # [c_in, c_out, a, b, dy, dx]
        return k.permute(1, 2, 3, 0, 4, 5).reshape(-1, w.shape[0], 2, 2), self.bias.repeat_interleave(s * s)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[0] < SUBPIXEL_MIN_ROWS:
            return super().forward(x)
        kernel, bias = self._kept(self.weight, self._derive)
        return F.pixel_shuffle(F.conv2d(F.pad(x, (0, 1, 0, 1)), kernel, bias), self.stride[0])

    def _fused(self, x: torch.Tensor, relu: bool, add: torch.Tensor | None) -> torch.Tensor:
        if x.shape[0] < SUBPIXEL_MIN_ROWS or add is not None:  # the sum comes after the shuffle
            return self._apart(x, relu, add)
        # the ReLU commutes with the shuffle, so it is fused into the convolution
        y = self._packed(F.pad(x, (0, 1, 0, 1)), self.weight, self._derive, (0, 0), (1, 1), relu, None)
        return F.pixel_shuffle(y, self.stride[0])


class ConvResBlock(nn.Module):
    """Convolution resblock: conv ``c_out//2`` (stride ``s``) + ReLU, conv ``c_out`` + ReLU, plus the input.

    The block's input is its *skip-out*, handed to the symmetric ``DeconvResBlock``.
    Where the block strides or changes width, the residual path gets a 1×1
    convolution (same stride, no activation) to match shapes.

    Shapes: ``float32[N, c_in, H, W]`` → ``float32[N, c_out, H/s, W/s]``.
    """

    def __init__(self, c_in: int, c_out: int, stride: int = 1):
        super().__init__()
        self.conv1 = Conv2d(c_in, c_out // 2, 3, stride=stride, padding=1)
        self.conv2 = Conv2d(c_out // 2, c_out, 3, padding=1)
        self.proj = StridedPointwise(c_in, c_out, stride) if (stride != 1 or c_in != c_out) else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv2.fused(self.conv1.fused(x, relu=True), relu=True)
        return h + x if self.proj is None else self.proj.fused(x, add=h)


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
        self.skip = Conv2d(c_skip, c_out // 2, 1)
        self.deconv2 = FlippedConvTranspose(c_out // 2, c_out, 3, padding=1)
        self.proj = StridedPointwiseTranspose(c_in, c_out, stride) if (stride != 1 or c_in != c_out) else None

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        h = self.skip.fused(skip, add=self.deconv1.fused(x, relu=True))
        h = self.deconv2.fused(h, relu=True)
        return h + x if self.proj is None else self.proj.fused(x, add=h)


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
        self.stem = Conv2d(c_in, c, 3, padding=1)
        # (c_in, c_out, stride) of each conv block, input to output; the deconv blocks mirror them.
        shapes = [(c, c, 1)] * outer + [(c, c, 2)] + [(c if i == 0 else ci, ci, 1) for i in range(inner)]
        self.down = nn.ModuleList(ConvResBlock(a, b, s) for a, b, s in shapes)
        self.up = nn.ModuleList(DeconvResBlock(b, a, a, s) for a, b, s in reversed(shapes))

    def forward(self, x: torch.Tensor, stem: torch.Tensor | None = None) -> torch.Tensor:
        """``x``'s features; ``stem``: ``self.stem(x)`` (before its ReLU) where the caller has it."""
        h = self.stem.fused(x, relu=True) if stem is None else F.relu(stem)
        skips = []
        for block in self.down:
            skips.append(h)
            h = block(h)
        for block, skip in zip(self.up, reversed(skips)):
            h = block(h, skip)
        return h
