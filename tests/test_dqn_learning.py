"""Learning tests for DQN and Bootstrapped DQN with priors (bsuite's defaults, with bsuite's initialisation and, for
Bootstrapped DQN, acting with the episode's parameters), through the registry. Seeds: run i has key PRNGKey(i), as on
the command line.

- Bootstrapped DQN on Deep Sea 10 (map 42), 5 seeds, 200 episodes: at least 4 of 5 seeds solved by bsuite's rule
  (bad fraction < 0.9; bsuite's 'beats dithering' bound is 2^10 + 100 = 1124) and the greedy policy (majority vote)
  reaches the treasure at the end (return > 0.9; optimum 0.99). Calibration (300 episodes): solved at
  [119, 82, 72, 96, 86], greedy 0.99 in every seed; bsuite's own agent: solved at 64 to 109
  (benchmarks/results/bsuite_parity/README.md).
- DQN with epsilon = 0.05, the negative control, 10 seeds, 500 episodes: at most 1 of 10 ever finds the treasure.
  Calibration: 0 of 10; in the parity benchmark ours found it in 1 of 50 seeds and bsuite's DQN in 0 of 50, so
  two or more of 10 would happen with probability about 1.6% at the rate both share.
- slow: `uncertain-rl train --agent dqn --env cartpole --steps 100000 --seeds 3` (rl-baselines3-zoo's tuned DQN as
  the CartPole preset): a greedy evaluation of at least 475 in at least 2 of 3 seeds. Calibration: best greedy
  evaluation [500, 500, 500]; the final evaluations [144, 37, 111] show DQN's well-known instability on CartPole.
"""

import json

import jax
import numpy as np
import pytest

from conftest import train_registry
from uncertain_rl.app.cli import main
from uncertain_rl.loops import greedy_returns
from uncertain_rl.metrics import first_treasure_episode, solved_at, beats_dithering


@pytest.mark.long
def test_boot_dqn_solves_deep_sea_10():
    res, env, agent = train_registry('boot_dqn', 'deep_sea', 10, episodes=200, seeds=5)
    greedy = jax.vmap(lambda s, k: greedy_returns(env, agent, s, k, 1, 10)[0])(
        res.agent_state, jax.random.split(jax.random.PRNGKey(9), 5)
    )
    solved = solved_at(res.logs['total_bad_episodes'])
    ok = beats_dithering(solved, 10) & (np.asarray(greedy) > 0.9)
    assert ok.sum() >= 4, (solved, greedy)


@pytest.mark.long
def test_dqn_epsilon_greedy_rarely_finds_the_treasure():
    res, _, _ = train_registry('dqn', 'deep_sea', 10, episodes=500, seeds=10)
    found = first_treasure_episode(res.logs['denoised_return']) > 0
    assert found.sum() <= 1, first_treasure_episode(res.logs['denoised_return'])


@pytest.mark.slow
def test_dqn_cartpole_preset_reaches_475_greedy(tmp_path):
    assert (
        main(
            [
                'train',
                '--agent',
                'dqn',
                '--env',
                'cartpole',
                '--steps',
                '100000',
                '--seeds',
                '3',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    best = [r['best_greedy_return'] for r in json.loads((tmp_path / 'summary.json').read_text())['results']]
    assert sum(b >= 475 for b in best) >= 2, best
