"""Figures whose texts collide cannot be read: the communication matrix's
title and its panels' titles must not overlap, nor a legend the bars."""
from graphcomm_lab import plots


def drawn_figure(monkeypatch, draw):
    """The figure `draw` makes, drawn, instead of saved."""
    drawn = {}

    def keep(fig, out_base):
        fig.canvas.draw()
        drawn["fig"] = fig
        return []

    monkeypatch.setattr(plots, "_save", keep)
    draw()
    return drawn["fig"], drawn["fig"].canvas.get_renderer()


def test_matrix_titles_do_not_overlap(monkeypatch, tmp_path):
    models = {f"{a}/{m}": {"messages": [[0, w], [w, 0]]}
              for a, w in (("ld", 1200), ("suitor", 300))
              for m in ("hybrid", "ncl", "ncl-combined", "nsr", "nsr-agg", "rma", "rma-fence",
                        "rma-hash", "shmem-fence", "shmem-hash")}
    run = {"kernel": "match", "status": "ok", "input": "rmat:16", "ranks": 2,
           "result": {"comm_matrix": {"models": models}}}
    fig, renderer = drawn_figure(monkeypatch,
                                 lambda: plots.comm_matrix([run], "match", tmp_path / "m"))
    title = fig._suptitle.get_window_extent(renderer)
    panels = [ax.title.get_window_extent(renderer) for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2  # ld's ten models alike, suitor's ten alike
    for panel in panels:
        assert not title.overlaps(panel), (title, panel)


def test_queue_legend_hides_no_bar(monkeypatch, tmp_path):
    engines = [{"engine": e, "umq": {"mean": s}, "prq": {"mean": 0}, "ns_per_operation": s}
               for e, s in (("linked-list", 500), ("bins", 3), ("vectors", 520))]
    runs = [{"kernel": "mq", "status": "ok", "input": inp, "result": {"engines": engines}}
            for inp in ("synth:depth", "synth:many-to-one,ranks=64")]
    fig, renderer = drawn_figure(monkeypatch, lambda: plots.queues(runs, "mq", tmp_path / "q"))
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert len(legends) == 1
    box = legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer))
