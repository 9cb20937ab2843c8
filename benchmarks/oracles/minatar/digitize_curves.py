"""Read MinAtar's published DQN curve on Breakout off its README figure (`img/learning_curves.gif` of
github.com/kenjyoung/MinAtar): the blue curve's height at given frames, from the panel's own axis ticks.

The figure plots each game's moving average of training returns over 100 episodes against frames (0 to 5M), the mean
of 30 runs. The Breakout panel is located by its frame (the axes' dark spines) and calibrated by its tick marks: x ticks
at 0, 1, ..., 5 million frames, y ticks at 0, 5, 10, 15. The curve's height at a frame is the median row of the
DQN colour (matplotlib's seaborn-colorblind blue, RGB (0, 114, 178)) within two pixels of that column; the curve is
drawn about 4 pixels thick and one unit of return is about 23 pixels, so a reading is good to about ±0.2 where the
curve is flat and less where it rises steeply (before 300,000 frames).

    python benchmarks/oracles/minatar/digitize_curves.py PATH/learning_curves.gif > published.json
"""

import json
import sys

import numpy as np
from PIL import Image

BREAKOUT_PANEL = (1500, 150, 2300, 680)  # left, top, right, bottom of the Breakout panel in the 3038 x 1629 figure
DQN_BLUE = np.array([0, 114, 178])
FRAMES = (100_000, 200_000, 300_000, 500_000, 1_000_000, 2_000_000, 3_000_000, 4_980_000)


def ticks(dark: np.ndarray) -> tuple:
    "The panel's x tick columns (0 to 5M) and y tick rows (15, 10, 5, 0), from the dark pixels beside its spines."
    spine_cols = np.where(dark.sum(0) > 300)[0]
    spine_rows = np.where(dark.sum(1) > 500)[0]
    left, bottom = spine_cols.min(), spine_rows.max()
    centres = lambda idx: [float(np.mean(g)) for g in np.split(idx, np.where(np.diff(idx) > 1)[0] + 1)]
    xs = centres(np.where(dark[bottom + 2 : bottom + 8, :].sum(0) >= 3)[0])
    ys = centres(np.where(dark[:, left - 8 : left - 2].sum(1) >= 3)[0])
    return xs, [y for y in ys if y < bottom]  # below the axis: the tick labels' text


def read(path: str) -> dict:
    img = np.asarray(Image.open(path).convert('RGB')).astype(int)
    panel = img[BREAKOUT_PANEL[1] : BREAKOUT_PANEL[3], BREAKOUT_PANEL[0] : BREAKOUT_PANEL[2]]
    xs, ys = ticks(panel.sum(-1) < 150)
    assert len(xs) == 6 and len(ys) == 4, (xs, ys)  # 0..5M frames; 15, 10, 5, 0
    x_of = lambda f: xs[0] + (xs[-1] - xs[0]) * f / 5e6
    y_to_return = lambda y: (ys[-1] - y) / (ys[-1] - ys[0]) * 15
    blue = np.abs(panel - DQN_BLUE).sum(-1) < 60
    out = {}
    for f in FRAMES:
        c = int(round(x_of(f)))
        rows = np.where(blue[:, c - 2 : c + 3].any(1))[0]
        out[str(f)] = round(float(y_to_return(np.median(rows))), 1)
    return out


if __name__ == '__main__':
    source = 'github.com/kenjyoung/MinAtar img/learning_curves.gif'
    print(json.dumps(dict(source=source, breakout_dqn=read(sys.argv[1])), indent=1))
