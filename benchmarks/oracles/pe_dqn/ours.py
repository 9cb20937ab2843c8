"""Our agents on the PE-DQN oracle's design: bsuite's Deep Sea of size N (map 42), the same number of seeds, each
seed stopping once solved (bsuite's rule) or at the cap.

    python benchmarks/oracles/pe_dqn/ours.py --size 10 --seeds 10 --out benchmarks/results/pe_dqn_oracle/ours_n10
    python benchmarks/oracles/pe_dqn/ours.py --arm boot --size 10 --seeds 10 \
        --out benchmarks/results/pe_dqn_oracle/boot_n10

`--arm pe_dqn` is the claim `pe_dqn_regret_paper`'s `pe_dqn (paper)` (uncertain_rl.suites.deep_sea): Table 4's network
(one hidden layer of 512, K = 101, QR prior 20) with the oracle runner's β schedule (5 -> 0 over 3,300 episodes). `--arm
boot` is the same claim's rival, `boot_dqn+P (paper)`: the paper's Bootstrapped DQN+P baseline, whose speed on the same
design is the yardstick of the gap the oracle is run to explain. All seeds run as one compiled, vmapped run (keys
`split(PRNGKey(0), seeds)`), in chunks, until every seed has solved. Writes `summary.json` in the oracle runner's format
(`results`: one dict per seed with `first_treasure`, `solved_at`, `beats_dithering`, `episodes_run`), so `compare.py`
reads both alike.
"""

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

from uncertain_rl import registry
from uncertain_rl.experiments import Experiment, split_keys, sweep
from uncertain_rl.checkpoints import Checkpoints
from uncertain_rl.metrics import beats_dithering, first_treasure_episode, sweep_solved_at
from uncertain_rl.agents.pe_dqn import PE_DQN_PAPER_CLAIM


ARMS = dict(pe_dqn='pe_dqn', boot='boot_dqn')  # --arm -> the agent of the claim's arm
SETTINGS = ('arm', 'size', 'seeds', 'episodes', 'beta_decay_episodes', 'mapping_seed', 'chunks')  # what a resume keeps


def arm_config(name: str, beta_decay_episodes: int):
    "The claim's arm of agent `name`; PE-DQN's with the oracle runner's β decay (its `--beta-decay-episodes`)."
    (arm,) = [a for a in PE_DQN_PAPER_CLAIM.arms if a.agent == ARMS[name]]
    extra = dict(beta_decay_episodes=beta_decay_episodes) if arm.agent == 'pe_dqn' else {}
    return registry.agent_config(arm.agent, **dict(arm.overrides, **extra)), arm


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--arm', default='pe_dqn', choices=sorted(ARMS))
    ap.add_argument('--size', type=int, default=10)
    ap.add_argument('--seeds', type=int, default=10, help='seeds 0..S-1, as keys split(PRNGKey(0), S)')
    ap.add_argument('--episodes', type=int, default=10_000, help='episode cap (bsuite: 10,000)')
    ap.add_argument('--beta-decay-episodes', type=int, default=3300, help="the oracle runner's default")
    ap.add_argument('--mapping-seed', type=int, default=42)
    ap.add_argument('--chunks', type=int, default=100, help='checks for "every seed solved" during the cap')
    ap.add_argument('--checkpoint-every', type=int, default=5, help='save the whole state every this many chunks')
    ap.add_argument('--out', required=True)
    return ap.parse_args(argv)


def claim_settings(out: Path, args: argparse.Namespace) -> bool:
    """Write `args.json` in `out`, or check that the one there has these settings (a `ValueError` naming the first
    that differs); False if `out` holds a finished run already."""
    mine = {k: getattr(args, k) for k in SETTINGS}
    if (out / 'args.json').exists():
        theirs = json.loads((out / 'args.json').read_text())
        for k in SETTINGS:
            if theirs.get(k) != mine[k]:
                raise ValueError(
                    f"{k}: {out} holds a run with {k} = {theirs.get(k)!r}, not {mine[k]!r}; use another --out"
                )
        return not (out / 'summary.json').exists()
    out.mkdir(parents=True, exist_ok=True)
    (out / 'args.json').write_text(json.dumps(mine, indent=1))
    return True


def seed_results(args: argparse.Namespace, solved: np.ndarray, res) -> list:
    "One dict per seed, in the oracle runner's format."
    first = first_treasure_episode(np.nan_to_num(res.logs['denoised_return'])).reshape(-1)
    episodes_run = int(np.asarray(res.episodes).max())
    return [
        dict(
            seed=s,
            size=args.size,
            first_treasure=int(first[s]),
            solved_at=int(solved[s]),
            beats_dithering=bool(beats_dithering(solved[s], args.size)),
            episodes_run=episodes_run,
        )
        for s in range(args.seeds)
    ]


def main(argv=None) -> None:
    args = parse(argv)
    out = Path(args.out)
    if not claim_settings(out, args):
        print(f'{out} holds the finished run (summary.json): nothing to do')
        return
    config, arm = arm_config(args.arm, args.beta_decay_episodes)
    start = time.perf_counter()
    exp = Experiment(
        config,
        'deep_sea',
        episodes=args.episodes,
        size=args.size,
        seeds=args.seeds,
        keys=split_keys(args.seeds),
        mapping_seed=args.mapping_seed,
        eval_every=0,
        snapshots=0,
        num_chunks=args.chunks,
    )
    solved, res = sweep(exp, sweep_solved_at, checkpoints=Checkpoints(out / 'checkpoint', args.checkpoint_every))
    solved = solved.reshape(-1)  # [seeds]: one setting
    seconds = time.perf_counter() - start
    results = seed_results(args, solved, res)
    summary = dict(
        args=vars(args),
        arm=arm.label,
        config=json.loads(json.dumps(config.__dict__, default=str)),
        seconds=round(seconds, 1),
        results=results,
    )
    tmp = out / 'summary.json.tmp'
    tmp.write_text(json.dumps(summary, indent=1))
    tmp.replace(out / 'summary.json')
    shutil.rmtree(out / 'checkpoint', ignore_errors=True)  # the results are on disk: nothing to resume
    print(f"{'seed':>5} {'first treasure':>15} {'solved at':>10} {'beats dithering':>16}")
    for r in results:
        print(
            f"{r['seed']:>5} {r['first_treasure'] or '-':>15} {r['solved_at'] or '-':>10} "
            f"{str(r['beats_dithering']):>16}"
        )
    print(f"{seconds:.0f} s (this call) for {args.seeds} seeds x {results[0]['episodes_run']} episodes")


if __name__ == '__main__':
    main()
