"""The file fuzzer's CI budget: a deterministic strided subset of every corruption of a tiny file of each kind
(`python -m tests.fuzz.files --all` runs every byte). Flips and cuts: 100% refused or identical; re-signed
structural edits: refused or a self-consistent file; nothing escapes, and STABLEHLO (parsed by jax's C++ code)
runs in a child process so that an abort fails the test instead of killing pytest."""
import subprocess
import sys

import numpy as np
import pytest

import files as F
import msx
from msx import nn


def _check(result: dict, min_cases: int) -> None:
    counts = result["counts"]
    assert result["escapes"] == []
    for mode in ("flip", "cut"):
        assert set(counts[mode]) <= {"refused", "identical"}, counts
    assert set(counts["edit"]) <= {"refused", "identical", "valid"} and counts["edit"].get("refused", 0) > 0
    assert sum(sum(c.values()) for c in counts.values()) >= min_cases, counts


@pytest.mark.parametrize("kind,stride,min_cases", [("msxir", 11, 580), ("checkpoint", 2, 800), ("mindir", 2, 650),
                                                   ("npz", 1, 1100)])
def test_every_corruption_is_refused_or_loads_identical(tmp_path, kind, stride, min_cases):
    _check(F.fuzz(kind, str(tmp_path), stride=stride), min_cases)


def test_stablehlo_corruptions_never_abort_the_process():
    _check(F.fuzz_in_child("stablehlo", stride=11, timeout=600), 300)


def test_the_fuzzer_finds_what_skipped_checks_let_through(tmp_path, monkeypatch):
    """The oracle works: with every checkpoint taken for a foreign file (the old "not ours: skip the checks"),
    flipped bytes load wrong values and the fuzzer reports them as escapes."""
    from msx import checkpoint

    monkeypatch.setattr(checkpoint, "_writer", lambda path, metadata: "")
    escapes = F.fuzz("checkpoint", str(tmp_path), stride=3)["escapes"]
    assert len(escapes) > 5 and all("loaded different contents" in e or e.startswith("edit") for e in escapes)


@pytest.fixture(scope="module")
def stablehlo(tmp_path_factory):
    msx.set_seed(0)
    folder = tmp_path_factory.mktemp("hlo")
    path = msx.export(nn.Dense(2, 2), msx.Tensor(np.ones((1, 2), np.float32)), file_name=str(folder / "d"),
                      file_format="STABLEHLO")
    return path, open(path, "rb").read()


def test_inspect_on_a_flipped_stablehlo_file_is_an_msx_error(stablehlo, tmp_path, capsys):
    """Was `malloc(): invalid size` (a process abort) or a raw JaxRuntimeError."""
    from msx.__main__ import main
    from msx.stablehlo_file import TRAILER

    def flipped(position: int) -> str:
        damaged = bytearray(stablehlo[1])
        damaged[position] ^= 0xFF
        (tmp_path / "bad.stablehlo").write_bytes(bytes(damaged))
        return str(tmp_path / "bad.stablehlo")

    proc = subprocess.run([sys.executable, "-m", "msx", "inspect", flipped(301)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert "[load]" in proc.stderr and "does not match its SHA-256" in proc.stderr, proc.stderr
    assert main(["inspect", flipped(len(stablehlo[1]) - TRAILER.size + 1)]) == 1
    assert "does not end with msx's STABLEHLO trailer" in capsys.readouterr().err
    assert main(["inspect", stablehlo[0]]) == 0
    assert "inputs:  float32[1,2]" in capsys.readouterr().out


def test_a_crafted_stablehlo_payload_behind_a_valid_checksum_fails_only_a_child(stablehlo, tmp_path, monkeypatch):
    """Re-signed damage reaches jax, in a child process: jax's error, or an abort of its C++ reader (what one
    flipped byte did to `python -m msx inspect`), is a MalformedFileError in the caller."""
    from msx import stablehlo_file
    from msx.errors import MalformedFileError

    payload = bytearray(stablehlo[1][:-stablehlo_file.TRAILER.size])
    payload[300] ^= 0xFF
    (tmp_path / "crafted.stablehlo").write_bytes(stablehlo_file.seal(bytes(payload)))
    with pytest.raises(MalformedFileError, match="jax's StableHLO reader failed .*Failed to deserialize StableHLO"):
        stablehlo_file.describe(str(tmp_path / "crafted.stablehlo"))
    monkeypatch.setattr(stablehlo_file, "_CHILD", "import os; os.abort()")  # what malloc(): invalid size does
    with pytest.raises(MalformedFileError, match=r"jax's StableHLO reader crashed \(SIGABRT\)"):
        stablehlo_file.describe(stablehlo[0])


def test_unsealed_stablehlo_files_ask_for_a_re_export(stablehlo, tmp_path):
    from msx.errors import BadMagicError
    from msx.export import load_stablehlo
    from msx.stablehlo_file import TRAILER

    (tmp_path / "old.stablehlo").write_bytes(stablehlo[1][:-TRAILER.size])  # what msx 0.1.0 wrote
    with pytest.raises(BadMagicError, match="written without one .* re-export it with msx.export"):
        load_stablehlo(str(tmp_path / "old.stablehlo"))
    assert load_stablehlo(stablehlo[0]).in_avals[0].shape == (1, 2)
    with pytest.raises(BadMagicError, match="is a STABLEHLO artifact, .*from msx.export import load_stablehlo"):
        msx.load(stablehlo[0])
    with pytest.raises(msx.errors.LoadError, match="not a regular file"):
        load_stablehlo("/dev/zero")
