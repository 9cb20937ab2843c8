"""Runs inside the bsuite-oracle venv (bsuite 0.3.6, pandas 1.5), never imports uncertain_rl: bsuite's own loader and
analysis score each results directory given, one bsuite sweep per directory. Prints JSON:
{directory: {suite: score}}."""

import importlib
import json
import sys
import warnings

warnings.filterwarnings('ignore')
from bsuite.logging.csv_load import load_one_result_set  # noqa: E402


def scores(folder: str) -> dict:
    "bsuite's score of every experiment with logs in `folder` (each of its 23 experiments' own `analysis.score`)."
    df = load_one_result_set(folder)
    out = {}
    for name in sorted(df.bsuite_env.unique()):
        mine = df[df.bsuite_env == name]
        out[name] = float(importlib.import_module(f'bsuite.experiments.{name}.analysis').score(mine))
    return out


if __name__ == '__main__':
    print(json.dumps({folder: scores(folder) for folder in sys.argv[1:]}))
