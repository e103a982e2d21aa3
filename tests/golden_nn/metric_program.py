"""Metrics on fixed data, run as `python metric_program.py mindspore` (recorded: data/metrics.json) or with msx."""
import sys, numpy as np, json
ms = __import__(sys.argv[1])
nn = ms.nn if sys.argv[1] == 'msx' else __import__('mindspore.train', fromlist=['x'])
rng = np.random.default_rng(3)
scores = rng.uniform(size=(8, 4)).astype(np.float32); labels = rng.integers(0, 4, 8)
out = {}
def ev(m, *a, **k):
    m.clear(); m.update(*a); return getattr(m, 'eval')(**k)
for name in ['Precision', 'Recall']:
    out[name] = np.asarray(ev(getattr(nn, name)(), ms.Tensor(scores), ms.Tensor(labels))).tolist()
    out[name+'_avg'] = float(ev(getattr(nn, name)(), ms.Tensor(scores), ms.Tensor(labels), average=True))
out['F1'] = np.asarray(ev(nn.F1(), ms.Tensor(scores), ms.Tensor(labels))).tolist()
out['Fbeta'] = np.asarray(ev(nn.Fbeta(2), ms.Tensor(scores), ms.Tensor(labels))).tolist()
out['Top2'] = float(ev(nn.TopKCategoricalAccuracy(2), ms.Tensor(scores), ms.Tensor(labels)))
out['Top1'] = float(ev(nn.Top1CategoricalAccuracy(), ms.Tensor(scores), ms.Tensor(labels)))
out['CM'] = np.asarray(ev(nn.ConfusionMatrix(4), ms.Tensor(scores), ms.Tensor(labels))).tolist()
out['CM_target'] = np.asarray(ev(nn.ConfusionMatrix(4, normalize='target'), ms.Tensor(scores), ms.Tensor(labels))).tolist()
p = rng.uniform(size=(2, 1, 3, 3)).astype(np.float32); y = (rng.uniform(size=(2, 1, 3, 3)) > 0.5).astype(np.float32)
out['Dice'] = float(ev(nn.Dice(), ms.Tensor(p), ms.Tensor(y)))
probs = rng.dirichlet(np.ones(4), 6).astype(np.float32); lab = rng.integers(0, 4, 6)
out['Perplexity'] = float(ev(nn.Perplexity(), ms.Tensor(probs), ms.Tensor(lab)))
out['Perplexity_ignore'] = float(ev(nn.Perplexity(ignore_label=1), ms.Tensor(probs), ms.Tensor(lab)))
bs = rng.uniform(size=7).astype(np.float32); bl = np.array([0, 1, 1, 0, 1, 0, 1])
fpr, tpr, th = ev(nn.ROC(pos_label=1), ms.Tensor(bs), ms.Tensor(bl))
out['ROC'] = [np.asarray(fpr).tolist(), np.asarray(tpr).tolist(), np.asarray(th).tolist()]
out['auc'] = float(nn.auc(fpr, tpr))
emb = rng.standard_normal((4, 3)).astype(np.float32)
out['Cos'] = np.asarray(ev(nn.CosineSimilarity(), ms.Tensor(emb))).tolist()
out['Cos_mean'] = np.asarray(ev(nn.CosineSimilarity(reduction='mean', zero_diagonal=False), ms.Tensor(emb))).tolist()
cand = [['the', 'cat', 'sat', 'on', 'the', 'mat'], ['a', 'dog', 'ran', 'fast', 'today']]
refs = [[['the', 'cat', 'is', 'on', 'the', 'mat'], ['there', 'is', 'a', 'cat', 'on', 'the', 'mat']], [['a', 'dog', 'ran', 'very', 'fast', 'today']]]
out['Bleu2'] = float(ev(nn.BleuScore(n_gram=2), cand, refs))
out['Bleu4s'] = float(ev(nn.BleuScore(smooth=True), cand, refs))
print(json.dumps(out))
