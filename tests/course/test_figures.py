"""The first course's figures (content/plugins/figures.py) and the capstone's experiment
(content/plugins/experiments.py), below the level of a whole build."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from coursegen import drawing as figures
from coursegen.plugin_loading import load_plugins
from tests.nonempty import nonempty

REPO = Path(__file__).resolve().parents[2]
PLUGINS = load_plugins(REPO)  # this course's plugin package: its @figure functions (content/plugins/figures.py)
COURSE_FIGURES = sys.modules[f"{PLUGINS}.figures"]


FIGURE_KINDS = (
    "embedding_lookup",
    "sinusoidal_heatmap",
    "sinusoidal_wavelengths",
    "rope_rotation",
    "alibi_bias",
    "lm_head_matmul",
    "causal_mask",
    "rope_decay",
    "capstone_loss_curves",
)


def test_the_course_registers_its_figure_kinds_in_file_order():
    assert list(figures.figures(REPO)) == list(FIGURE_KINDS)


# Results for the figures drawn from an experiment (the capstone's: five methods, two seeds, 12 steps).
_RUN = {"final": 1.5, "losses": [2.08 - 0.05 * step for step in range(12)]}
EXPERIMENT_RESULTS = {
    "capstone_loss_curves": {
        "arms": {
            m: {"runs": [_RUN, {**_RUN, "final": 1.4}]} for m in ("none", "sinusoidal", "learned", "rope", "alibi")
        }
    }
}


@pytest.mark.parametrize("kind", FIGURE_KINDS)
def test_each_figure_is_a_deterministic_inline_svg(kind):
    results = EXPERIMENT_RESULTS.get(kind)
    first = figures.draw_svg(REPO, kind, {}, results)
    assert first.startswith("<svg") and first.rstrip().endswith("</svg>")
    assert "<dc:date>" not in first
    assert figures.draw_svg(REPO, kind, {}, results) == first


def test_figure_params_change_the_cache_key_and_the_drawing():
    assert figures.cache_key(REPO, "alibi_bias", {"n_heads": 2}) != figures.cache_key(
        REPO, "alibi_bias", {"n_heads": 4}
    )
    assert figures.draw_svg(REPO, "alibi_bias", {"n_heads": 2}) != figures.draw_svg(REPO, "alibi_bias", {"n_heads": 4})


def test_alibi_slopes_in_the_figure_follow_the_paper():
    assert COURSE_FIGURES._alibi_slopes(8) == [2 ** -(h + 1) for h in range(8)]
    assert COURSE_FIGURES._alibi_slopes(6)[:4] == [2**-2, 2**-4, 2**-6, 2**-8]
    assert COURSE_FIGURES._alibi_slopes(6)[4:] == [2**-1, 2**-3]  # every other slope of 8 heads


def test_float_params_accept_integers_but_not_booleans():
    assert figures.check_params(REPO, "sinusoidal_heatmap", {"base": 100}) == []
    assert figures.check_params(REPO, "sinusoidal_heatmap", {"seq_len": True})


def _drawn(kind, **params):
    figure = figures.figures(REPO)[kind](**params)
    figure.canvas.draw()
    return figure


def test_alibi_heads_param_draws_only_the_chosen_heads():
    figure = _drawn("alibi_bias", n_heads=8, heads=[0, 3, 7])
    titles = [ax.get_title() for ax in figure.axes if ax.images]
    assert [t.split(",")[0] for t in titles] == ["h=0", "h=3", "h=7"]
    figures.pyplot().close(figure)


def test_alibi_draws_every_head_by_default():
    figure = _drawn("alibi_bias", n_heads=4)
    assert len([ax for ax in figure.axes if ax.images]) == 4
    figures.pyplot().close(figure)


def test_alibi_heads_param_is_validated():
    assert figures.check_params(REPO, "alibi_bias", {"n_heads": 4, "heads": [1, 3]}) == []
    assert [where for where, _ in figures.check_params(REPO, "alibi_bias", {"n_heads": 4, "heads": [1, 4, -1]})] == [
        ("heads", 1),
        ("heads", 2),
    ]
    assert [where for where, _ in figures.check_params(REPO, "alibi_bias", {"n_heads": 4, "heads": [2, 2]})] == [
        ("heads", 1)
    ]
    assert [where for where, _ in figures.check_params(REPO, "alibi_bias", {"n_heads": 12})] == ["n_heads"]


@pytest.mark.parametrize("ids", [[2, 3, 4], [0, 1, 2, 3, 4], [7, 7, 0, 5, 1, 6]])
def test_embedding_lookup_row_labels_do_not_overlap_the_table(ids):
    figure = _drawn("embedding_lookup", vocab_size=8, d_model=4, ids=ids)
    table, lookup = figure.axes[:2]
    renderer = figure.canvas.get_renderer()
    table_box = table.get_tightbbox(renderer)
    labels = [label for label in lookup.get_yticklabels() if label.get_text()]
    assert [label.get_text() for label in labels][0] == f"s=0: id {ids[0]}"
    for label in labels:
        assert not label.get_window_extent(renderer).overlaps(table_box), label.get_text()
    figures.pyplot().close(figure)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_capstone_runs_train_in_child_processes_and_report_per_seed_results():
    import math

    had_torch = "torch" in sys.modules
    runs = sys.modules[f"{PLUGINS}.experiments"].capstone_runs
    arms = [{"id": "none", "position": "none"}, {"id": "rope", "position": "rope", "seeds": [1]}]
    results = runs(arms=arms, seeds=[0, 2], steps=5)
    assert results["seeds"] == [0, 2] and set(results["arms"]) == {"none", "rope"}
    assert results["arms"]["none"]["seeds"] == [0, 2] and results["arms"]["rope"]["seeds"] == [1]
    for arm in results["arms"].values():
        for run in nonempty(arm["runs"]):
            assert len(run["losses"]) == 5 and abs(run["losses"][0] - math.log(8)) < 0.3  # untrained: near ln 8
            assert 0 <= run["two_back"] <= 1
    one_worker = runs(arms=arms, seeds=[0, 2], steps=5, workers=1)
    assert one_worker == results  # each run is seeded on its own: the split over processes changes nothing
    assert ("torch" in sys.modules) == had_torch  # the build process imports no torch


def test_capstone_runs_report_a_failing_training():
    runs = sys.modules[f"{PLUGINS}.experiments"].capstone_runs
    with pytest.raises(RuntimeError, match="training the capstone model failed"):
        runs(arms=[{"id": "x", "position": "absolute"}], seeds=[0], steps=2)


def test_capstone_figure_is_drawn_from_the_experiment_and_keyed_by_the_training_code(monkeypatch):
    from coursegen import claims

    runs = {"final": 1.0, "losses": [2.0] * 20}
    results = {"arms": {m: {"runs": [runs, runs]} for m in ("none", "rope")}}
    figure = figures.figures(REPO)["capstone_loss_curves"](methods=["none", "rope"], results=results)
    assert len(figure.axes[0].get_legend().get_texts()) == 2
    figures.pyplot().close(figure)
    before = claims.cache_key(REPO, "capstone_runs", {})
    hashes = claims._file_hash
    monkeypatch.setattr(
        claims, "_file_hash", lambda path: "changed" if path.name == "capstone_training.py" else hashes(path)
    )
    assert claims.cache_key(REPO, "capstone_runs", {}) != before
    assert claims.cache_key(REPO, "capstone_runs", {"steps": 300}) != claims.cache_key(
        REPO, "capstone_runs", {"steps": 301}
    )


def test_rope_decay_figure_draws_one_curve_per_base():
    one = figures.figures(REPO)["rope_decay"](bases=[10000.0])
    two = figures.figures(REPO)["rope_decay"](bases=[10000.0, 500000.0])
    assert len(one.axes[0].lines) == 1 and len(two.axes[0].lines) == 2
