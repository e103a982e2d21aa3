"""The profile report of the simulated Ascend: a per-op table of estimates, totals and peak memory.

Estimates, not measurements: the numbers come from the cost and memory
models applied to the graph the simulator ran; the report says so when printed.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class AscendSpec:
    """The simulated chip. Defaults are the published figures of an Ascend 910 (fp16 Cube peak, HBM size and
    bandwidth); the float32 Cube rate and the launch and AICPU costs are this model's assumptions."""

    chip: str = "Ascend 910"
    peak_tflops: float = 256.0      # Cube, float16 / bfloat16 / int8 operands
    fp32_tflops: float = 64.0       # Cube, float32 operands (must_keep_origin_dtype)
    hbm_gb: float = 32.0            # device memory, GiB
    hbm_gbps: float = 1200.0        # Vector unit and Cube operand traffic, GB/s
    launch_us: float = 5.0          # per AI Core kernel (a fused node is one kernel)
    aicpu_gbps: float = 10.0        # AICPU fallback throughput, GB/s
    aicpu_launch_us: float = 50.0   # per AICPU kernel

    @property
    def capacity_bytes(self) -> int:
        return int(self.hbm_gb * 2 ** 30)

    def time_us(self, unit: str, flops: int, nbytes: int, kernels: int, low_precision: bool) -> float:
        """Estimated time: launches plus the Cube's compute or the unit's memory traffic, whichever is longer."""
        if unit == "Cube":
            peak = self.peak_tflops if low_precision else self.fp32_tflops
            return kernels * self.launch_us + max(flops / (peak * 1e6), nbytes / (self.hbm_gbps * 1e3))
        if unit == "Vector":
            return kernels * self.launch_us + nbytes / (self.hbm_gbps * 1e3)
        if unit == "AICPU":
            return kernels * self.aicpu_launch_us + nbytes / (self.aicpu_gbps * 1e3)
        return 0.0  # a view: no kernel


@dataclass(frozen=True)
class OpCost:
    """One row: an op the simulated chip runs (`scope` says where: "grad fwd", "grad bwd", "scan x10", ...)."""

    op: str
    unit: str          # "Cube" | "Vector" | "AICPU" | "view"
    scope: str
    output: str        # the result type, e.g. "f32[64,128]"
    dtype: str         # Cube: the dtype it multiplies in; others: the dtype its result is stored in
    flops: int         # Cube FLOPs (2*M*N*K for a matmul); 0 elsewhere
    bytes: int         # bytes read and written in device memory
    kernels: int
    time_us: float
    where: str         # the user's file:line


def format_size(n: float) -> str:
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{int(n)} B"


@dataclass
class ProfileReport:
    """What the simulated Ascend estimates for one compiled graph; `runs` counts the calls that used it."""

    graph: str
    precision_mode: str
    spec: AscendSpec
    rows: list[OpCost]
    peak_memory_bytes: int
    peak_at: str
    runs: int = 0
    device: str = field(init=False)

    def __post_init__(self) -> None:
        self.device = f"{self.spec.chip} (simulated on XLA CPU)"

    # ------------------------------------------------------------ totals
    @property
    def total_time_us(self) -> float:
        return sum(r.time_us for r in self.rows)

    @property
    def total_flops(self) -> int:
        return sum(r.flops for r in self.rows)

    @property
    def total_bytes(self) -> int:
        return sum(r.bytes for r in self.rows)

    @property
    def kernels(self) -> int:
        return sum(r.kernels for r in self.rows)

    def time_by_unit(self) -> dict[str, float]:
        by: dict[str, float] = {}
        for r in self.rows:
            if r.kernels:
                by[r.unit] = by.get(r.unit, 0.0) + r.time_us
        return by

    @property
    def aicpu_ops(self) -> list[str]:
        """The ops that fell back to the AICPU, as "Op at file:line"."""
        return [f"{r.op} at {r.where}" if r.where else r.op for r in self.rows if r.unit == "AICPU"]

    @property
    def capacity_bytes(self) -> int:
        return self.spec.capacity_bytes

    # ------------------------------------------------------------ as data
    def as_dicts(self) -> list[dict]:
        """The per-op table as plain records (e.g. for `pandas.DataFrame(report.as_dicts())`)."""
        return [asdict(r) for r in self.rows]

    def summary(self) -> dict:
        return {"device": self.device, "graph": self.graph, "precision_mode": self.precision_mode,
                "total_time_us": self.total_time_us, "time_by_unit_us": self.time_by_unit(),
                "kernels": self.kernels, "cube_flops": self.total_flops, "bytes": self.total_bytes,
                "peak_memory_bytes": self.peak_memory_bytes, "peak_at": self.peak_at,
                "capacity_bytes": self.capacity_bytes, "aicpu_ops": self.aicpu_ops, "runs": self.runs}

    # ------------------------------------------------------------ printing
    def table(self) -> str:
        head = ("op", "unit", "scope", "output", "dtype", "GFLOP", "bytes", "est. us", "where")
        body = [(r.op, r.unit, r.scope, r.output, r.dtype, f"{r.flops / 1e9:.4f}" if r.flops else "",
                 format_size(r.bytes), f"{r.time_us:.2f}", r.where) for r in self.rows]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in [head, *body]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __str__(self) -> str:
        units = ", ".join(f"{u} {t:.1f} us" for u, t in sorted(self.time_by_unit().items()))
        aicpu = "; ".join(self.aicpu_ops) or "none"
        return (f"ProfileReport: {self.graph} on {self.device}, precision_mode={self.precision_mode!r} "
                f"(estimates from a cost model, not measurements)\n{self.table()}\n"
                f"total: {self.total_time_us:.1f} us in {self.kernels} kernels ({units}); "
                f"Cube {self.total_flops / 1e9:.4f} GFLOP; {format_size(self.total_bytes)} moved\n"
                f"peak device memory: {format_size(self.peak_memory_bytes)} of {format_size(self.capacity_bytes)} "
                f"(at {self.peak_at}); AICPU fallbacks: {aicpu}; runs: {self.runs}")

    def __repr__(self) -> str:
        return (f"<ProfileReport {self.graph} on {self.device}: {len(self.rows)} ops, "
                f"{self.total_time_us:.1f} us est., peak {format_size(self.peak_memory_bytes)}>")
