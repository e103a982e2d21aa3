"""Recording MindSpore 2.10's answers to a module of cases (functions `case_<name>(*modules, tmp)` written once
against MindSpore's API), shared by the golden scripts of tests/golden/dataset_semantics, dataset_readers and
mindrecord. Each case runs in its own scratch folder; a result is JSON data, an error is recorded by the builtin
class it is (msx's errors are ValueErrors, as MindSpore's argument errors) and its message."""
import json
import tempfile

_KINDS = (TypeError, ValueError, RuntimeError, KeyError, IndexError, AttributeError, Exception)


def record(cases, modules: tuple, out_path: str, finish=None) -> dict:
    """Run every `case_*` of `cases` with `modules` and write {name: {"result"} or {"error", "message"}}."""
    out = {}
    for name in sorted(n for n in dir(cases) if n.startswith("case_")):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                result = getattr(cases, name)(*modules, tmp)
                out[name[5:]] = {"result": finish(result) if finish else result}
            except Exception as exc:  # noqa: BLE001 — recorded: msx must refuse it too
                kind = next(k for k in _KINDS if isinstance(exc, k))
                out[name[5:]] = {"error": kind.__name__, "message": str(exc)[:300]}
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print({k: v.get("error", "ok") for k, v in out.items()})
    return out
