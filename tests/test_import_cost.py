"""`import msx` loads only what the framework needs (issue 31): the heavy libraries behind the dataset pipeline
(grain, scipy.signal), the segmentation metrics (scipy.ndimage) and the optimizers (optax) load on first use.
Checked by the modules a fresh process holds, not by timing it."""
import json
import os
import subprocess
import sys

HEAVY = ("msx.dataset", "msx.mindrecord", "grain", "orbax", "scipy", "optax", "torch", "model_explorer",
         "tensorboardX", "PIL", "selenium")


def test_import_msx_leaves_the_heavy_libraries_unloaded():
    code = f"import json, sys; import msx; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []


def test_what_loads_lazily_still_works_on_first_use():
    code = ("import msx, sys; from msx import nn, ops\n"
            "net = nn.Dense(2, 1); opt = nn.Adam(net.trainable_params(), 0.1)\n"
            "ops.clip_by_global_norm((msx.Tensor([3.0, 4.0]),), 1.0)\n"
            "cb = msx.dataset.WaitedDSCallback()\n"
            "from msx.train.callback._callback import _is_waited_ds_callback\n"
            "print(_is_waited_ds_callback(cb), 'optax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[-2:] == ["True", "True"]


def test_the_import_freezes_what_it_made_and_gives_back_the_users_collector_settings():
    code = ("import gc, json; gc.set_threshold(900, 11, 12); import msx\n"
            "print(json.dumps([gc.get_threshold(), gc.get_freeze_count()]))")
    for env, frozen in (({}, True), ({"MSX_GC_FREEZE": "0"}, False)):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, **env}).stdout
        threshold, count = json.loads(out.strip().splitlines()[-1])
        assert threshold == [900, 11, 12]                     # the user's own thresholds, after the import
        assert (count > 100_000) == frozen                   # msx's and jax's objects skipped by later collections
