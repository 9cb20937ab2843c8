"""Each discrete-action agent's cost per seed-step on Deep Sea 14 (4 seeds, 150 episodes, one compiled chunk, no
evaluations or snapshots): the numbers the suite's `cpu` profile is sized with (notebook `84_suite`).

    python benchmarks/suite_agent_speed.py boot_dqn,dqn,tdu,...   > results/suite/agent_speed_ds14.jsonl
"""

import json
import sys
from uncertain_rl.experiments import Experiment, run

agents = sys.argv[1].split(',')
for a in agents:
    try:
        res = run(Experiment(a, 'deep_sea', episodes=150, size=14, seeds=4, eval_every=0, snapshots=0, num_chunks=1))
        steps = int(res.episodes.sum()) * 14
        print(
            json.dumps(
                dict(
                    agent=a,
                    compile=round(res.compile_seconds, 1),
                    run=round(res.run_seconds, 2),
                    ms_per_seed_step=round(1e3 * res.run_seconds / steps, 3),
                )
            ),
            flush=True,
        )
    except Exception as e:
        print(a, 'failed', e, flush=True)
