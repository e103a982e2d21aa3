"""The API coverage tool reads the committed MindSpore 2.10 name list and measures msx honestly."""
import json

import pytest

from msx.tools import api_coverage


@pytest.fixture(scope="module")
def rows():
    return {r.module: r for r in api_coverage.coverage()}


def test_names_file_is_mindspore_2_10():
    table = api_coverage.load_names()
    assert table["mindspore_version"] == "2.10.0"
    assert "add" in table["modules"]["mindspore.ops"] and "Tensor" in table["modules"]["mindspore"]
    assert all(not n.startswith("_") for names in table["modules"].values() for n in names)


def test_present_and_missing_partition_the_names(rows):
    import msx

    top = rows["mindspore"]
    assert set(top.present) | set(top.missing) == set(api_coverage.load_names()["modules"]["mindspore"])
    assert "Tensor" in top.present and all(hasattr(msx, n) for n in top.present)
    assert all(not hasattr(msx, n) for n in top.missing)
    assert 0 < top.percent <= 100


def test_cli_prints_table_and_missing(capsys):
    api_coverage.main([])
    out = capsys.readouterr().out
    assert "mindspore.ops" in out and "%" in out
    api_coverage.main(["--missing", "mindspore.nn.Cell"])
    missing = capsys.readouterr().out.split()
    assert "construct" not in missing
    api_coverage.main(["--markdown"])
    assert capsys.readouterr().out.startswith("| module")


def test_names_file_is_plain_sorted_json():
    with open(api_coverage.NAMES_FILE) as f:
        table = json.load(f)
    for names in table["modules"].values():
        assert names == sorted(names)
