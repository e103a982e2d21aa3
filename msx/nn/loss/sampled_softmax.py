"""`nn.SampledSoftmaxLoss`: MindSpore 2.10's sampled softmax loss for classifiers over many classes.

Per example the logits of its `num_true` true classes and of `num_sampled` classes drawn once per call by
`ops.UniformCandidateSampler(num_true, num_sampled, unique=True, range_max=num_classes, seed,
remove_accidental_hits)` (or the given `sampled_values`) are `logits . w_c + b_c - log(expected_count_c)`; the
loss is the cross entropy of their softmax against the target (1 / num_true on each true class, 0 on the
sampled ones). As in MindSpore, `remove_accidental_hits` acts through the sampler (with it, the sampled
classes avoid the batch's labels while the range allows), and the result is the per-example loss (N,) whatever
`reduction` says: MindSpore's `construct` never reduces (a `reduction` other than 'none' warns once).
"""
from __future__ import annotations

from ... import dtype as mstype
from ...errors import OpTypeError
from ...ignored_args import SEED_INSTEAD, not_honoured
from ...ops import functional as F
from ...ops.candidate_sampler_ops import uniform_candidate_sampler
from ...tensor import Tensor
from .loss import LossBase


class SampledSoftmaxLoss(LossBase):
    """The sampled softmax loss of (weights (C, dim), biases (C,), labels (N, num_true), logits (N, dim))."""

    def __init__(self, num_sampled: int, num_classes: int, num_true: int = 1, sampled_values=None,
                 remove_accidental_hits: bool = True, seed: int = 0, reduction: str = "none") -> None:
        super().__init__(reduction)
        name = type(self).__name__
        if num_true < 1:
            raise ValueError(f"{name}: num_true must be greater than or equal to 1, got {num_true}")
        if seed < 0:
            raise ValueError(f"{name}: seed must be greater than or equal to 0, got {seed}")
        if num_sampled > num_classes:
            raise ValueError(f"{name}: num_sampled ({num_sampled}) must be smaller than or equal to num_classes "
                             f"({num_classes})")
        if num_true > num_classes:
            raise ValueError(f"{name}: num_true ({num_true}) must be smaller than or equal to num_classes "
                             f"({num_classes})")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"{name}: sampled_values must be a list or tuple, got "
                                f"{type(sampled_values).__name__}")
            if len(sampled_values) != 3:
                raise ValueError(f"{name}: sampled_values must hold 3 Tensors (sampled_candidates, "
                                 f"true_expected_count, sampled_expected_count), got {len(sampled_values)}")
        not_honoured("nn.SampledSoftmaxLoss", "seed", seed, 0, SEED_INSTEAD)
        not_honoured("nn.SampledSoftmaxLoss", "reduction", reduction, "none",
                     "MindSpore 2.10's SampledSoftmaxLoss returns the per-example loss (N,) whatever reduction "
                     "says, and so does msx")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits, self.seed = remove_accidental_hits, seed

    def sample(self, labels: Tensor):
        """The (sampled_candidates, true_expected_count, sampled_expected_count) this call uses."""
        if self.sampled_values is not None:
            return tuple(self.sampled_values)
        return uniform_candidate_sampler(labels, self.num_true, self.num_sampled, True, self.num_classes, 0,
                                         self.remove_accidental_hits)  # seed: warned of at __init__

    def construct(self, weights: Tensor, biases: Tensor, labels: Tensor, logits: Tensor) -> Tensor:
        name = type(self).__name__
        for what, t in (("weights", weights), ("biases", biases), ("labels", labels), ("logits", logits)):
            if not isinstance(t, Tensor):
                raise OpTypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"{name}: labels must be int32 or int64, got {labels.dtype}")
        out_logits, targets = self._sampled_logits(weights, biases, labels, logits)
        stable = F.exp(out_logits - F.reduce_max(out_logits, 1, True))
        pred = stable / F.reduce_sum(stable, 1, True)
        return -1 * F.reduce_sum(targets * F.log(pred + 1.0e-20), 1)

    def _sampled_logits(self, weights, biases, labels, logits):
        num_true = self.num_true
        labels = F.reshape(F.cast(labels, mstype.int32), (-1, num_true))
        sampled, true_expected, sampled_expected = self.sample(labels)
        sampled = F.cast(sampled, mstype.int32)
        labels_flat = F.reshape(labels, (-1,))
        n_true, dim = labels_flat.shape[0], weights.shape[1]
        all_ids = F.concat((labels_flat, sampled), 0)
        all_w, all_b = F.gather(weights, all_ids, 0), F.gather(biases, all_ids, 0)
        true_w, sampled_w = all_w[:n_true], all_w[n_true:]
        true_b, sampled_b = all_b[:n_true], all_b[n_true:]
        row_dots = F.expand_dims(logits, 1) * F.reshape(true_w, (-1, num_true, dim))
        true_logits = F.reshape(F.reduce_sum(F.reshape(row_dots, (-1, dim)), 1), (-1, num_true))
        true_logits = true_logits + F.reshape(true_b, (-1, num_true)) - F.log(true_expected)
        sampled_logits = F.matmul(logits, sampled_w.T) + sampled_b - F.log(sampled_expected)
        out_logits = F.concat((true_logits, sampled_logits), 1)
        targets = F.concat((F.ones_like(true_logits) / num_true, F.zeros_like(sampled_logits)), 1)
        return out_logits, targets


__all__ = ["SampledSoftmaxLoss"]
