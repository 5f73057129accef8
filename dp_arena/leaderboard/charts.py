"""Charts for the leaderboard page as inline SVG text: confidence-interval bars, rating
histories and score histograms.

Every element is built by :func:`element`, which escapes every attribute value and
every text: bot names (untrusted) can only ever be text. Colours are SVG presentation
attributes, not ``style`` attributes, so the page's content security policy can forbid
inline styles.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["PALETTE", "ci_chart", "color", "distribution_chart", "element", "history_chart", "text"]

# Colour-blind-friendly (Okabe-Ito) first, then darker tones.
PALETTE = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#56b4e9",
    "#d55e00",
    "#f0e442",
    "#000000",
    "#7f3c8d",
    "#11a579",
    "#3969ac",
    "#e73f74",
)
LABEL_CHARACTERS = 28  # longer names are cut (with an ellipsis) inside charts only


def text(value: Any) -> str:
    """``value`` as escaped text for HTML or SVG content and attribute values."""
    return html.escape(str(value), quote=True)


def element(tag: str, content: str | None = None, **attributes: Any) -> str:
    """An SVG element; attribute names use ``_`` for ``-`` (``stroke_width``) and values
    are escaped; ``content`` is escaped text (``None``: an empty element)."""
    attrs = "".join(
        f' {name.rstrip("_").replace("_", "-")}="{text(_value(value))}"'
        for name, value in attributes.items()
    )
    if content is None:
        return f"<{tag}{attrs}/>"
    return f"<{tag}{attrs}>{text(content)}</{tag}>"


def _value(value: Any) -> str:
    """Numbers with two decimals at most and no trailing zeros (stable and compact)."""
    if isinstance(value, float):
        formatted = f"{value:.2f}".rstrip("0").rstrip(".")
        return "0" if formatted in ("-0", "") else formatted
    return str(value)


def _svg(width: int, height: int, css_class: str, title: str, body: list[str]) -> str:
    return (
        f'<svg class="{css_class}" role="img" viewBox="0 0 {width} {height}" width="{width}"'
        f' height="{height}" xmlns="http://www.w3.org/2000/svg">'
        + element("title", title)
        + "".join(body)
        + "</svg>"
    )


def label(name: str) -> str:
    """A name shortened for a chart (escaped later, by :func:`element`)."""
    return name if len(name) <= LABEL_CHARACTERS else name[: LABEL_CHARACTERS - 1] + "…"


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values covering ``low``..``high``."""
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    ticks = []
    value = math.ceil(low / step) * step
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10) + 0.0)
        value += step
    return ticks


def _tick_text(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:,.1f}"


def _line(x1: float, x2: float, y1: float, y2: float, stroke: str, **style: Any) -> str:
    """A line from (x1, y1) to (x2, y2) in ``stroke``, drawn in ``style`` (SVG attributes,
    ``stroke_width=2``)."""
    return element("line", x1=x1, x2=x2, y1=y1, y2=y2, stroke=stroke, **style)


def _grid_line(x1: float, x2: float, y1: float, y2: float) -> str:
    """A light line behind a chart's marks, at a tick."""
    return _line(x1, x2, y1, y2, "#e3e3e3", stroke_width=1)


def _tick_label(content: str, x: float, y: float, anchor: str) -> str:
    """The text of a tick on an axis."""
    return element("text", content, x=x, y=y, text_anchor=anchor, font_size=11, fill="#555")


def _caption(content: str, x: float, y: float) -> str:
    """What a chart's axis measures, centred below it."""
    return element("text", content, x=x, y=y, text_anchor="middle", font_size=12, fill="#333")


def ci_chart(
    rows: Sequence[dict[str, Any]], *, title: str, adjusted_label: str = "adjusted"
) -> str:
    """A forest plot: per row (``name``, ``color``, ``mean``, ``low``, ``high``, optional
    ``adjusted_mean``/``adjusted_low``/``adjusted_high``) a dot at the mean and a bar over
    the interval, the adjusted score's dashed below it (``adjusted_label`` names it in the
    caption); a vertical line at zero."""
    row_height, left, right, top, bottom, width = 26, 210, 30, 34, 34, 760
    height = top + bottom + row_height * max(1, len(rows))
    values = [0.0]
    for row in rows:
        for key in ("low", "high", "adjusted_low", "adjusted_high"):
            if row.get(key) is not None:
                values.append(row[key])
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or 1.0
    low, high = low - pad, high + pad

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    body = []
    for tick in _ticks(low, high):
        body.append(_grid_line(x(tick), x(tick), top - 6, height - bottom))
        body.append(_tick_label(_tick_text(tick), x(tick), height - bottom + 18, "middle"))
    body.append(_line(x(0), x(0), top - 10, height - bottom, "#888", stroke_width=1.5))
    adjusted = any(row.get("adjusted_mean") is not None for row in rows)
    for index, row in enumerate(rows):
        y = top + row_height * index + row_height / 2
        hue = row["color"]
        body.append(
            element(
                "text",
                label(row["name"]),
                x=left - 10,
                y=y + 4,
                text_anchor="end",
                font_size=13,
                fill="#222",
            )
        )
        if row.get("adjusted_mean") is not None:
            lower = y + 7
            start, end = x(row["adjusted_low"]), x(row["adjusted_high"])
            dashed = {"stroke_dasharray": "4 3", "opacity": 0.7}
            body.append(_line(start, end, lower, lower, hue, stroke_width=2, **dashed))
            body.append(
                element(
                    "rect",
                    x=x(row["adjusted_mean"]) - 3.5,
                    y=lower - 3.5,
                    width=7,
                    height=7,
                    fill="#fff",
                    stroke=hue,
                    stroke_width=1.5,
                )
            )
            y -= 4
        body.append(
            _line(x(row["low"]), x(row["high"]), y, y, hue, stroke_width=4, stroke_linecap="round")
        )
        body.append(
            element(
                "circle", cx=x(row["mean"]), cy=y, r=5, fill=hue, stroke="#fff", stroke_width=1.5
            )
        )
    caption = "mbb per deal (dot: mean; bar: 95% interval"
    caption += f"; dashed: {adjusted_label})" if adjusted else ")"
    body.append(_caption(caption, (left + width - right) / 2, height - 4))
    return _svg(width, height, "chart", title, body)


def history_chart(
    series: Sequence[tuple[str, str, Sequence[tuple[int, float]]]], *, events: int, title: str
) -> str:
    """Lines of (event index, value) per (name, colour, points) series, events
    1..``events`` on x."""
    width, height, left, right, top, bottom = 760, 320, 60, 190, 20, 40
    values = [value for _, _, points in series for _, value in points] or [0.0]
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or 1.0
    low, high = low - pad, high + pad
    span = max(1, events - 1)

    def x(index: int) -> float:
        return left + (index - 1) / span * (width - left - right)

    def y(value: float) -> float:
        return top + (high - value) / (high - low) * (height - top - bottom)

    body = []
    for tick in _ticks(low, high, 5):
        body.append(_grid_line(left, width - right, y(tick), y(tick)))
        body.append(_tick_label(_tick_text(tick), left - 8, y(tick) + 4, "end"))
    for tick in sorted({round(t) for t in _ticks(1, events, min(events, 10))} | {1, events}):
        if 1 <= tick <= events:
            body.append(_tick_label(str(tick), x(tick), height - bottom + 16, "middle"))
    for index, (name, hue, points) in enumerate(series):
        if len(points) > 1:
            coordinates = " ".join(f"{_value(x(event))},{_value(y(v))}" for event, v in points)
            body.append(
                element("polyline", points=coordinates, fill="none", stroke=hue, stroke_width=2)
            )
        for event, value in points:
            body.append(element("circle", cx=x(event), cy=y(value), r=2.5, fill=hue))
        legend_y = top + 8 + 18 * index
        body.append(
            element("rect", x=width - right + 14, y=legend_y - 9, width=12, height=12, fill=hue)
        )
        body.append(
            element(
                "text", label(name), x=width - right + 32, y=legend_y + 1, font_size=12, fill="#222"
            )
        )
    body.append(_caption("event", (left + width - right) / 2, height - 6))
    return _svg(width, height, "chart", title, body)


def distribution_chart(
    name: str, edges: Sequence[float], counts: Sequence[int], *, hue: str
) -> str:
    """A small histogram of one competitor's block scores over ``edges``."""
    width, height, left, right, top, bottom = 250, 120, 8, 8, 22, 22
    tallest = max(counts) if counts and max(counts) > 0 else 1
    bar = (width - left - right) / max(1, len(counts))
    body = [element("text", label(name), x=left, y=14, font_size=12, fill="#222")]
    for position, count in enumerate(counts):
        bar_height = count / tallest * (height - top - bottom)
        body.append(
            element(
                "rect",
                x=left + position * bar,
                y=height - bottom - bar_height,
                width=max(bar - 1, 1.0),
                height=bar_height,
                fill=hue,
            )
        )
    if edges and edges[0] < 0 < edges[-1]:
        zero = left + (0 - edges[0]) / (edges[-1] - edges[0]) * (width - left - right)
        body.append(
            _line(zero, zero, top, height - bottom, "#444", stroke_width=1, stroke_dasharray="2 2")
        )
    if edges:
        body.append(
            element("text", _tick_text(edges[0]), x=left, y=height - 6, font_size=10, fill="#555")
        )
        body.append(
            element(
                "text",
                _tick_text(edges[-1]),
                x=width - right,
                y=height - 6,
                font_size=10,
                text_anchor="end",
                fill="#555",
            )
        )
    return _svg(width, height, "small", f"block scores of {name}", body)
