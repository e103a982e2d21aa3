"""`mindspore.parallel.nn`: the micro-batching wrappers, whose one implementation is `msx.nn.micro_batch`."""
from __future__ import absolute_import  # noqa: F401  (mindspore.parallel.nn exports it too)
from ..nn.micro_batch import (GradAccumulation, MicroBatchInterleaved, Pipeline, PipelineCell,  # noqa: F401
                              PipelineGradReducer)

__all__ = ["GradAccumulation", "MicroBatchInterleaved", "Pipeline", "PipelineCell", "PipelineGradReducer"]
