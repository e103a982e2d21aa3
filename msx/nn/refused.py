"""MindSpore's `nn` names for Ascend-only training machinery (THOR layers, AdaSum wrappers, host-offloaded
Adam, fault-tolerance and dataset-sink cells) and Cell methods of its graph compiler: they exist so that
imports work and refuse use with `NotAvailableError` naming what to use (`msx.unavailable`)."""
from __future__ import annotations

from ..unavailable import refuse, refuse_methods
from .cell import Cell

_THOR = ("a layer of MindSpore's THOR second-order optimiser",
         "use the ordinary layer (nn.Dense, nn.Conv2d, nn.Embedding, nn.EmbeddingLookup) and a first-order optimizer")
NN = {
    _THOR: "Conv2dThor DenseThor EmbeddingThor EmbeddingLookupThor thor",
    ("an Ascend AdaSum gradient wrapper", "use nn.DistributedGradReducer (a plain all-reduce mean)"): (
        "AdaSumByDeltaWeightWrapCell AdaSumByGradWrapCell"),
    ("Adam with its state offloaded to the host (an Ascend memory saving)", "use nn.Adam (same update)"): (
        "AdamOffload"),
    ("MindSpore's Ascend fault-tolerance optimizer wrapper (MindIO TFT)", "use the optimizer itself"): (
        "OptTFTWrapper"),
    ("the dataset-sink queue cell of MindSpore's runtime", "iterate the dataset (dataset.create_tuple_iterator)"): (
        "GetNextSingleOp"),
    ("an internal cell of MindSpore's semi-auto parallel", "shard with Cell.shard or msx.parallel (docs/parallel.md)"): (
        "VirtualDatasetCellTriple"),
}
CELL_METHODS = {
    ("a boost (Ascend acceleration) switch", "msx has no boost modes; train the Cell as it is"): "set_boost",
    ("Ascend activation offloading", "recompute instead (Cell.recompute())"): "offload",
    ("MindSpore's graph-compiler protobuf", "export the Cell with msx.export(net, *inputs, file_format='MINDIR')"): (
        "get_func_graph_proto"),
}

NAMES: dict = {}
NN_NAMES = refuse(NAMES, "mindspore.nn", NN)
CELL_METHOD_NAMES = refuse_methods(Cell, "mindspore.nn.Cell", CELL_METHODS)
