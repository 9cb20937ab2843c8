"""Learning tests for Bootstrapped DQN with priors and the DQN negative control on Deep Sea 10 (mapping seed 42,
bsuite's deep_sea/0). Each trains 5 seeds (PRNGKey 0..4) in one vmapped compiled run.

- Bootstrapped DQN (bsuite defaults): in at least 4 of 5 seeds, solved by bsuite's rule (bad fraction < 0.9) within
  400 episodes (bsuite's budget is 10,000 and its 'beats dithering' bound 2^10 + 100 = 1124), and the greedy policy
  (ensemble mean) reaches the treasure at the end (greedy return > 0.9; optimum 0.99).
- DQN with epsilon = 0.05 (the negative control), 10 seeds, 500 episodes: at most 2 of 10 seeds ever find the
  treasure. The issue asked for 'none of 5 seeds', but that is not what DQN does: we measured 1 of 10 seeds (seed 3,
  first treasure at episode 89, then solved at 126), because before an untrained network has learned the move cost
  its greedy policy is close to a fixed random policy, which finds the treasure within 500 episodes with probability
  1 - (1 - 2^-10)^500 = 39%. The bound of 2/10 says DQN does no better than that, against Bootstrapped DQN's 4/5+.
Measured on 2 CPU cores: about 45 s and 25 s.
"""
import jax
import numpy as np

from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.agents.dqn import DQNConfig, make_dqn
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.metrics import first_treasure_episode, solved_at, beats_dithering
from uncertain_rl.loops import TrainConfig, train, gymnax_spec, greedy_returns


def train_seeds(make, config, episodes, seeds=5, size=10):
    env = DeepSea(size, mapping_seed=42)
    agent = make(config, gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=size * episodes, max_episodes=episodes))
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    states, logs = jax.jit(jax.vmap(run.run))(keys)
    greedy = jax.vmap(lambda s, k: greedy_returns(env, agent, s, k, 1, size)[0])(states, keys)
    return {k: np.asarray(v) for k, v in logs.items()}, np.asarray(greedy)


def test_boot_dqn_solves_deep_sea_10():
    logs, greedy = train_seeds(make_boot_dqn, BootDQNConfig(), episodes=400)
    solved = solved_at(logs['total_bad_episodes'])
    ok = beats_dithering(solved, 10) & (solved > 0) & (solved <= 400) & (greedy > 0.9)
    assert ok.sum() >= 4, (solved, greedy)


def test_dqn_epsilon_greedy_rarely_finds_the_treasure():
    logs, _ = train_seeds(make_dqn, DQNConfig(epsilon=0.05), episodes=500, seeds=10)
    found = first_treasure_episode(logs['denoised_return']) > 0
    assert found.sum() <= 2, first_treasure_episode(logs['denoised_return'])
