"""A bot's score over time as a small inline SVG: its mean after each match with the
95% interval as a band. Only numbers go into it."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["score_chart"]

WIDTH, HEIGHT, PAD = 640, 220, 36


def score_chart(points: Sequence[tuple[float, float | None, float | None]]) -> str:
    """``points``: (mean, low, high) after each match, oldest first; ``""`` for none."""
    if not points:
        return ""
    values = [value for point in points for value in point if value is not None]
    top, bottom = max([*values, 0.0]), min([*values, 0.0])
    if top == bottom:
        top, bottom = top + 1, bottom - 1
    count = len(points)

    def x(index: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * (index / max(1, count - 1))

    def y(value: float) -> float:
        return PAD + (HEIGHT - 2 * PAD) * (top - value) / (top - bottom)

    band_top = [(x(i), y(high)) for i, (_, _, high) in enumerate(points) if high is not None]
    band_bottom = [(x(i), y(low)) for i, (_, low, _) in enumerate(points) if low is not None]
    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
            ' role="img" aria-label="score over time, mbb per deal">'
        ),
        (
            f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#999"'
            ' stroke-dasharray="4 3"/>'
        ),
    ]
    if len(band_top) >= 2:
        outline = band_top + list(reversed(band_bottom))
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in outline)
        parts.append(f'<polygon points="{path}" fill="#9cc9b0" fill-opacity="0.5"/>')
    line = " ".join(f"{x(i):.1f},{y(mean):.1f}" for i, (mean, _, _) in enumerate(points))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#173d2b" stroke-width="2"/>')
    for i, (mean, _, _) in enumerate(points):
        parts.append(f'<circle cx="{x(i):.1f}" cy="{y(mean):.1f}" r="3" fill="#173d2b"/>')
    parts.append(
        f'<text x="4" y="{y(top) + 4:.1f}" font-size="11">{top:+.0f}</text>'
        f'<text x="4" y="{y(bottom) + 4:.1f}" font-size="11">{bottom:+.0f}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">'
        f"after each of {count} match{'es' if count != 1 else ''}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
