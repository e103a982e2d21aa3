"""Detection, pooling-with-argmax and CTC class ops (msx/ops/detection_ops.py, pool_argmax_ops.py, ctc_ops.py)
against MindSpore 2.10 CPU. NonMaxSuppressionV3 has no CPU kernel there (tests/test_detection_ops.py checks it
against its documented rule)."""
import numpy as np

_RNG = np.random.default_rng(7)
_BOXES = np.array([[0, 0, 10, 10, 0.5], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7], [0, 0, 5, 5, 0.95],
                   [21, 21, 31, 31, 0.3], [0, 0, 9, 9, 0.1], [0, 0, 1, 2, 0.6]], np.float32)
_TIED = np.array([0.5, 0.7, 0.5, 0.5, 0.7, 0.5, 0.2, 0.5, 0.7, 0.5, 0.5], np.float32)  # equal scores: sort order
_TIES = np.c_[np.arange(11) * 10, np.zeros(11), np.arange(11) * 10.5 + 1, np.ones(11), _TIED].astype(np.float32)
_TIES[3, :4] = _TIES[2, :4] + 0.1  # overlaps box 2
_OVERLAPS = _RNG.uniform(0, 1, (6, 6)).astype(np.float32)
_SCORES6 = np.array([0.9, 0.8, 0.7, 0.95, 0.3, 0.05], np.float32)
_X4 = _RNG.standard_normal((2, 2, 5, 5)).astype(np.float32)
_X5 = _RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
_FEAT = _RNG.standard_normal((2, 2, 6, 7)).astype(np.float32)
_ROIS = np.array([[0, 0.5, 0.5, 4.2, 3.7], [1, 1, 0, 5, 5], [0, 2.5, 1.5, 9.0, 8.0], [1, 3, 3, 3.2, 3.1]],
                 np.float32)
_LOGITS = _RNG.standard_normal((5, 3, 4)).astype(np.float32)
_LAB_IDX = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]], np.int64)
_LAB_VAL = np.array([1, 2, 0, 0, 2, 1], np.int32)
_SEQ = np.array([5, 4, 3], np.int32)
_CB = _RNG.uniform(-0.2, 1.2, (2, 5, 1, 4)).astype(np.float32)
_CS = _RNG.uniform(0, 1, (2, 5, 3)).astype(np.float32)

CASES = [
    dict(id="nms_with_mask", primitive="NMSWithMask", call="ops.NMSWithMask", init=dict(iou_threshold=0.3),
         inputs=[_BOXES]),
    dict(id="nms_with_mask_default", primitive="NMSWithMask", call="ops.NMSWithMask", init={}, inputs=[_BOXES]),
    dict(id="nms_with_mask_ties", primitive="NMSWithMask", call="ops.NMSWithMask", init=dict(iou_threshold=0.5),
         inputs=[_TIES]),
    dict(id="nms_with_overlaps", primitive="NonMaxSuppressionWithOverlaps",
         call="ops.NonMaxSuppressionWithOverlaps", init={}, inputs=[_OVERLAPS, _SCORES6],
         args=[np.array(4, np.int32), np.array(0.5, np.float32), np.array(0.1, np.float32)], eager_only=True),
    dict(id="max_pool_with_argmax_same", primitive="MaxPoolWithArgmax", call="ops.MaxPoolWithArgmax",
         init=dict(kernel_size=2, strides=2, pad_mode="same"), inputs=[_X4]),
    dict(id="max_pool_with_argmax_valid", primitive="MaxPoolWithArgmax", call="ops.MaxPoolWithArgmax",
         init=dict(kernel_size=(3, 2), strides=(1, 2), pad_mode="VALID"), inputs=[_X4]),
    dict(id="max_pool_with_argmax_v2", primitive="MaxPoolWithArgmaxV2", call="ops.MaxPoolWithArgmaxV2",
         init=dict(kernel_size=2, strides=2, pads=1), inputs=[_X4]),
    dict(id="max_pool_with_argmax_v2_dil_ceil", primitive="MaxPoolWithArgmaxV2", call="ops.MaxPoolWithArgmaxV2",
         init=dict(kernel_size=(2, 3), strides=(2, 1), pads=(1, 1), dilation=(1, 2), ceil_mode=True),
         inputs=[_X4]),
    dict(id="max_pool3d_with_argmax", primitive="MaxPool3DWithArgmax", call="ops.MaxPool3DWithArgmax",
         init=dict(ksize=(2, 2, 2), strides=(1, 2, 2), pads=0), inputs=[_X5]),
    dict(id="max_pool3d_with_argmax_pad_ceil", primitive="MaxPool3DWithArgmax", call="ops.MaxPool3DWithArgmax",
         init=dict(ksize=2, strides=2, pads=1, ceil_mode=True), inputs=[_X5]),
    dict(id="adaptive_max_pool3d", primitive="AdaptiveMaxPool3D", call="ops.AdaptiveMaxPool3D", init={},
         inputs=[_X5], args=[np.array([2, 3, 3], np.int32)]),
    dict(id="adaptive_max_pool3d_4d", primitive="AdaptiveMaxPool3D", call="ops.AdaptiveMaxPool3D", init={},
         inputs=[_X5[0]], args=[np.array([3, 1, 2], np.int32)]),
    dict(id="roi_align", primitive="ROIAlign", call="ops.ROIAlign",
         init=dict(pooled_height=2, pooled_width=3, spatial_scale=0.5), inputs=[_FEAT, _ROIS]),
    dict(id="roi_align_mode0", primitive="ROIAlign", call="ops.ROIAlign",
         init=dict(pooled_height=3, pooled_width=2, spatial_scale=1.0, sample_num=1, roi_end_mode=0),
         inputs=[_FEAT, _ROIS]),
    dict(id="ctc_loss", primitive="CTCLoss", call="ops.CTCLoss", init={},
         inputs=[_LOGITS, _LAB_IDX, _LAB_VAL, _SEQ]),
    dict(id="ctc_loss_no_merge", primitive="CTCLoss", call="ops.CTCLoss",
         init=dict(ctc_merge_repeated=False), inputs=[_LOGITS, _LAB_IDX, _LAB_VAL, _SEQ]),
    dict(id="ctc_loss_collapse", primitive="CTCLoss", call="ops.CTCLoss",
         init=dict(preprocess_collapse_repeated=True), inputs=[_LOGITS, _LAB_IDX, _LAB_VAL, _SEQ]),
    dict(id="ctc_greedy_decoder", primitive="CTCGreedyDecoder", call="ops.CTCGreedyDecoder", init={},
         inputs=[_LOGITS, _SEQ], eager_only=True),
    dict(id="ctc_greedy_decoder_no_merge", primitive="CTCGreedyDecoder", call="ops.CTCGreedyDecoder",
         init=dict(merge_repeated=False), inputs=[_LOGITS, _SEQ], eager_only=True),
    dict(id="combined_nms", primitive="CombinedNonMaxSuppression", call="ops.CombinedNonMaxSuppression", init={},
         inputs=[_CB, _CS], args=[np.array(2, np.int32), np.array(4, np.int32), np.array(0.5, np.float32),
                                  np.array(0.2, np.float32)], eager_only=True),
    dict(id="combined_nms_pad_noclip", primitive="CombinedNonMaxSuppression",
         call="ops.CombinedNonMaxSuppression", init=dict(pad_per_class=True, clip_boxes=False),
         inputs=[_CB, _CS], args=[np.array(1, np.int32), np.array(8, np.int32), np.array(0.3, np.float32),
                                  np.array(0.2, np.float32)], eager_only=True),
]
