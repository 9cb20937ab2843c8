"""The PE-DQN authors' own agent (github.com/anyboby/diverse-projection-ensembles) on bsuite's Deep Sea, as an oracle.

Their released code is the VizDoom pipeline only (CUDA, an IMPALA CNN, frame stacks); their bsuite code was never
published. This driver imports their agent `common.pedqn.PEDQN` (action selection, targets, losses, the propagated
bonus), their replay buffers and schedules unchanged from the exported tree (`--src`, default /work/oracles/pe_dqn_src),
and supplies only what the bsuite setting needs and their tree lacks:

* CPU: `Tensor.cuda` and `Module.cuda` become no-ops (their code calls `.cuda()` unconditionally); AMP is off.
* Network: the paper's bsuite network (Table 4: one hidden layer of 512 units per model, He truncated-normal weights),
  built from their `networks.EnsembleModule` with the output layout and prior handling of their `ImpalaCNNPEDQN`
  (four models: C51, QR, bonus-C51, bonus-QR; one prior network, added only to the QR value model).
* Observations: Deep Sea's N x N one-hot grid as a one-frame `LazyFrames` of uint8 255/0, which their
  `prep_observation_for_qnet` turns back into 1/0 floats.
* Shims for two paths of their code that crash outside VizDoom's settings (see README.md, "Shims"):
  `UniformReplayBuffer` has no `.size` (pedqn.py reads it); `normalize_ri=False` raises UnboundLocalError in
  `dtd_target` (pedqn.py:152-156), so without normalisation (the default here) an identity normaliser stands in.
* Replay (`--replay`): their n-step `put` (replay_buffer.py:24-46, 98-121) drops every transition whose own step ends
  the episode and marks the one before it terminal; with n = 1 Deep Sea's treasure reward never enters the replay.
  `fixed` (default) stores correct n-step transitions into their buffer's storage; `authors` keeps their `put`.
* The training loop: one environment, the order of train_pedqn.py:121-153 (act, train, maybe sync target, step, put),
  with β on the paper's bsuite clock (episodes, Table 4) through their `LinearSchedule`.

Environment: bsuite 0.3.6's `DeepSea(size, deterministic=True, unscaled_move_cost=0.01, randomize_actions=True,
mapping_seed=42)`, the map bsuite's deep_sea sweep uses and our benchmarks use.

    python run_deep_sea.py --size 10 --seeds 0 --episodes 50 --out /tmp/pe_oracle
    python run_deep_sea.py --size 14 --seeds 0 1 2 3 4 5 6 7 8 9 --episodes 10000 --out results/n14

Writes per seed `episodes_N{size}_seed{seed}.csv` (episode, return, treasure, total_bad_episodes, cumulative distinct
(row, column, action) visited, steps, seconds, beta)
and `summary.json`; prints episodes to first treasure and bsuite's "solved" episode per seed.
"""

import argparse
import csv
import json
import math
import random
import sys
import time
import types
from pathlib import Path

import numpy as np
import torch
from torch import nn

DEFAULT_SRC = '/work/oracles/pe_dqn_src'


def import_authors(src: str):
    "Their modules from the exported tree, made to run on a CPU without editing a file."
    torch.Tensor.cuda = lambda self, *args, **kwargs: self
    nn.Module.cuda = lambda self, *args, **kwargs: self
    # common.utils imports create_env from common.env_wrappers, which needs cv2, imageio and gym-retro (VizDoom/Atari
    # only; gym-retro does not install on Python 3.11). Nothing on this path calls it.
    stub = types.ModuleType('common.env_wrappers')

    def create_env(*args, **kwargs):
        raise RuntimeError('the VizDoom/Atari env pipeline is not available here')

    stub.create_env, stub.BASE_FPS_ATARI, stub.BASE_FPS_PROCGEN = create_env, 60, 15
    sys.modules['common.env_wrappers'] = stub
    sys.path.insert(0, src)
    from common import networks, pedqn, replay_buffer, utils

    return types.SimpleNamespace(networks=networks, pedqn=pedqn, replay_buffer=replay_buffer, utils=utils)


def he_truncated_normal_(linear: nn.Linear) -> None:
    "Table 4's initialisation: variance scaling 2/fan_in, truncated at 2 sd (std corrected), zero bias."
    std = math.sqrt(2.0 / linear.in_features) / 0.87962566103423978
    nn.init.trunc_normal_(linear.weight, 0.0, std, -2.0 * std, 2.0 * std)
    nn.init.zeros_(linear.bias)


def make_mlp_pedqn(authors, in_features: int, hidden: tuple, init: str):
    "Their ImpalaCNNPEDQN's heads and prior (networks.py:614-677) with an MLP body instead of the CNN, for bsuite."
    EnsembleModule = authors.networks.EnsembleModule

    class MLPPEDQN(nn.Module):
        def __init__(self, in_depth, actions, linear_layer, n_heads, prior_beta=0.0):
            super().__init__()
            self.actions, self.n_heads, self.prior_beta = actions, n_heads, prior_beta

            def mlp():
                layers, width = [], in_features
                for h in hidden:
                    layers += [linear_layer(width, h), nn.ReLU()]
                    width = h
                layers.append(linear_layer(width, actions * n_heads))
                net = nn.Sequential(*layers)
                if init == 'he_truncated_normal':
                    for m in net:
                        if isinstance(m, nn.Linear):
                            he_truncated_normal_(m)
                return net

            # the order of networks.py:656: categorical, quantile, bonus categorical, bonus quantile
            self.catlinear, self.quantlinear, self.u_catlinear, self.u_quantlinear = mlp(), mlp(), mlp(), mlp()
            self.linear_ens = EnsembleModule(
                [self.catlinear, self.quantlinear, self.u_catlinear, self.u_quantlinear], shared_body=None
            )
            if self.prior_beta > 0:  # as networks.py:660-666: one prior, for the quantile value model only
                self.prior_ens = EnsembleModule([mlp()], shared_body=None)

        def forward(self, x):  # as networks.py:668-677, without the CNN and pooling
            x = torch.flatten(x, 1)
            x_ = self.linear_ens(x)
            if self.prior_beta > 0:
                with torch.no_grad():
                    x_pr = self.prior_beta * self.prior_ens(x)[:, 0]
                x_[:, 1] = x_[:, 1] + x_pr
            return x_.view(-1, x_.shape[1], self.n_heads, self.actions)

    return MLPPEDQN


def fixed_n_step_put(self, *transition, j):
    """Correct n-step transitions for an environment that resets itself: (s_t, a_t, sum_{k<m} gamma^k r_{t+k},
    s_{t+n}, done) with m the steps up to and including the first terminal step among t .. t+n-1 (done then True)."""
    buf = self.n_step_buffers[j]
    buf.append(transition)
    if len(buf) < self.n_step + 1:
        return
    state, action = buf[0][0], buf[0][1]
    reward, done = 0.0, False
    for k in range(self.n_step):
        reward += buf[k][2] * self.gamma**k
        if buf[k][3]:
            done = True
            break
    self._store(state, buf[self.n_step][0], action, reward, done)


def make_buffers(authors, replay: str):
    "Their buffers with `.size` on the uniform one (pedqn.py:222 reads it) and, for `fixed`, a correct n-step put."
    rb = authors.replay_buffer

    class Uniform(rb.UniformReplayBuffer):
        size = property(lambda self: len(self.buffer))

        def _store(self, state, next_state, action, reward, done):  # the storage step of replay_buffer.py:38-46
            item = (
                state,
                next_state,
                torch.LongTensor([action]),
                torch.FloatTensor([reward]),
                torch.FloatTensor([done]),
            )
            if len(self.buffer) < self.capacity:
                self.buffer.append(item)
            else:
                self.buffer[self.nextwrite % self.capacity] = item
                self.nextwrite += 1

    class Prioritized(rb.PrioritizedReplayBuffer):
        def _store(self, state, next_state, action, reward, done):  # the storage step of replay_buffer.py:115-121
            idx = self.next_idx
            self.data[idx] = self.prepare_transition(state, next_state, action, reward, done)
            self.next_idx = (idx + 1) % self.capacity
            self.size = min(self.capacity, self.size + 1)
            self._set_priority_min(idx, math.sqrt(self.max_priority))
            self._set_priority_sum(idx, math.sqrt(self.max_priority))

    if replay == 'fixed':
        Uniform.put = fixed_n_step_put
        Prioritized.put = fixed_n_step_put
    return Uniform, Prioritized


class IdentityNormaliser(nn.Module):
    """Stands in for RunningMeanStdTh when intrinsic rewards are not normalised: pedqn.py multiplies its output by
    (1 - gamma_i^n) (lines 113, 153), so dividing by that factor hands back the raw w_1, as the `else` at line 115."""

    def __init__(self, factor: float):
        super().__init__()
        self.factor = factor

    def forward(self, x, adjustmean=True, fractionalmean=1.0, zeromin=False):
        return x / self.factor

    def update(self, tensor):
        pass


def build_agent(authors, args, env, in_features: int):
    "Their PEDQN with our network, buffers and (without normalisation) the identity normaliser."
    net = make_mlp_pedqn(authors, in_features, tuple(args.hidden), args.init)
    authors.networks.get_model = lambda model_str, spectral_norm: net  # pedqn.py:27
    Uniform, Prioritized = make_buffers(authors, args.replay)
    authors.pedqn.UniformReplayBuffer, authors.pedqn.PrioritizedReplayBuffer = Uniform, Prioritized  # pedqn.py:58-60
    ns = types.SimpleNamespace(
        save_dir=None,
        use_amp=False,
        verbosity=1,
        network_arch='mlp',
        spectral_norm='none',
        frame_stack=1,
        grayscale=True,
        n_heads=args.n_heads,
        prior_beta=args.prior_beta,
        double_dqn=True,
        normalize_ri=True,
        mean_adjustment_ri=args.mean_adjustment_ri,
        ri_norm=1,
        episodic_ri=args.episodic_ri,
        q_min=args.q_min,
        q_max=args.q_max,
        gamma=args.gamma,
        gamma_i=args.gamma_i,
        n_step=args.n_step,
        prioritized_er=args.per,
        burnin=args.burnin,
        buffer_size=args.buffer_size,
        parallel_envs=1,
        burnin_uncertainty=args.burnin_uncertainty,
        max_grad_norm=args.max_grad_norm,
        lr=args.lr,
        adam_eps=args.adam_eps,
        lr_decay_steps=None,
        lr_decay_factor=None,
    )
    agent = authors.pedqn.PEDQN(env, ns)
    if not args.normalize_ri:  # the unnormalised branch of pedqn.py:43-47, 112-115, which dtd_target cannot run
        agent.norm_ri = True  # (kept True so dtd_target assigns reward_i_tp1; the normaliser is the identity)
        agent.intr_rms = IdentityNormaliser(1 - args.gamma_i**args.n_step)
        agent.u_min, agent.u_max = 0.0, (args.q_max - args.q_min) * 2  # pedqn.py:43-44, else-branches
        agent.z_u = agent.u_min + torch.arange(0.0, args.n_heads, dtype=torch.float16) * (
            agent.u_max - agent.u_min
        ) / float(args.n_heads - 1)  # pedqn.py:47
    return agent


class BsuiteDeepSea:
    "bsuite's DeepSea behind the interface their loop uses: LazyFrames observations, auto-reset, action_space."

    def __init__(self, size: int, mapping_seed: int, seed: int):
        from bsuite.environments.deep_sea import DeepSea
        from gym.spaces import Discrete
        from gym.wrappers import LazyFrames

        self.env = DeepSea(
            size,
            deterministic=True,
            unscaled_move_cost=0.01,
            randomize_actions=True,
            seed=seed,
            mapping_seed=mapping_seed,
        )
        self.LazyFrames = LazyFrames
        self.action_space = Discrete(2, seed=seed)

    def frame(self, obs):
        return self.LazyFrames([(np.asarray(obs) * 255).astype(np.uint8)[..., None]], False)  # (1, N, N, 1)

    def reset(self):
        return self.frame(self.env.reset().observation)

    def step(self, action: int):
        ts = self.env.step(action)
        if ts.last():
            return self.frame(self.env.reset().observation), ts.reward, True
        return self.frame(ts.observation), ts.reward, False

    def info(self):
        return self.env.bsuite_info()


def solved_at(total_bad: list, threshold: float = 0.9) -> int:
    """bsuite's deep_sea analysis.find_solution: first episode (1-based) with total_bad_episodes / episode < 0.9;
    0 if none."""
    for e, tb in enumerate(total_bad, 1):
        if tb / e < threshold:
            return e
    return 0


def run_seed(authors, args, seed: int, out: Path) -> dict:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # as train_pedqn.py:30-32
    env = BsuiteDeepSea(args.size, args.mapping_seed, seed)
    agent = build_agent(authors, args, env, args.size * args.size)
    LinearSchedule = authors.utils.LinearSchedule
    eps_schedule = LinearSchedule(0, args.init_eps, args.final_eps, max(args.eps_decay_steps, 1))  # in steps
    beta_schedule = LinearSchedule(0, args.init_beta, args.final_beta, max(args.beta_decay_episodes, 1))  # in episodes
    per_beta_schedule = LinearSchedule(0, args.per_beta0, 1.0, max(args.per_time_steps, 1))
    rows, total_bad, first_treasure, solved, denoised, visited = [], [], 0, 0, 0.0, set()
    state, ep_return, ep_steps, step, start = env.reset(), 0.0, 0, 0, time.perf_counter()
    path = out / f'episodes_N{args.size}_seed{seed}.csv'
    f = path.open('w', newline='')
    writer = csv.writer(f)
    writer.writerow(
        ['episode', 'return', 'treasure', 'total_bad_episodes', 'visited_state_actions', 'steps', 'seconds', 'beta']
    )
    while len(rows) < args.episodes:  # the loop of train_pedqn.py:121-153, one environment
        beta = beta_schedule(len(rows))
        agent.set_beta(beta)
        action = agent.act([state], eps_schedule(step))
        if agent.buffer.burnedin:
            for _ in range(args.train_count):
                agent.train(args.batch_size, beta=per_beta_schedule(step))
        if step % args.sync_every == 0 and agent.buffer.burnedin:
            agent.sync_Q_target()
        a = int(action[0])
        visited.add((env.env._row, env.env._column, a))
        next_state, reward, done = env.step(a)
        agent.buffer.put(state, a, reward, done, j=0)
        state, ep_return, ep_steps, step = next_state, ep_return + reward, ep_steps + 1, step + 1
        if done:
            info = env.info()
            episode = len(rows) + 1
            treasure = int(info['denoised_return'] > denoised)  # bsuite counts the +1 of the treasure here
            denoised = info['denoised_return']
            total_bad.append(info['total_bad_episodes'])
            if treasure and not first_treasure:
                first_treasure = episode
            if not solved and total_bad[-1] / episode < 0.9:
                solved = episode  # = solved_at(total_bad)
            row = [
                episode,
                round(ep_return, 6),
                treasure,
                info['total_bad_episodes'],
                len(visited),
                step,
                round(time.perf_counter() - start, 3),
                round(beta, 6),
            ]
            rows.append(row)
            writer.writerow(row)
            ep_return, ep_steps = 0.0, 0
            if episode % args.print_every == 0:
                f.flush()
                print(
                    f'  seed {seed} episode {episode}: treasures {sum(r[2] for r in rows)}, bad {total_bad[-1]}, '
                    f'state-actions visited {len(visited)}/{args.size * (args.size + 1)}, '
                    f'{(time.perf_counter() - start) / episode:.3f} s/episode',
                    flush=True,
                )
            if solved and args.stop_when_solved and episode >= args.min_episodes:
                break
    f.close()
    seconds = time.perf_counter() - start
    assert solved == solved_at(total_bad)
    return dict(
        seed=seed,
        size=args.size,
        first_treasure=first_treasure,
        solved_at=solved,
        beats_dithering=bool(solved and solved < 2**args.size + 100),
        episodes_run=len(rows),
        treasures=int(sum(r[2] for r in rows)),
        visited_state_actions=len(visited),
        steps=step,
        seconds=round(seconds, 2),
        seconds_per_episode=round(seconds / max(len(rows), 1), 4),
        csv=str(path),
    )


# Arguments that do not change what a seed computes: a summary written with other values of these can be resumed.
NOT_RESULT_ARGS = ('seeds', 'out', 'print_every', 'threads', 'src')


def finished_seeds(path: Path, args) -> list:
    """The seeds an earlier invocation finished into `path` with the same settings (so a run can be resumed seed by
    seed); a summary made with other settings is an error, never silently mixed."""
    if not path.exists():
        return []
    stored = json.loads(path.read_text())
    mine = {k: v for k, v in vars(args).items() if k not in NOT_RESULT_ARGS}
    theirs = {k: v for k, v in stored['args'].items() if k not in NOT_RESULT_ARGS}
    if mine != theirs:
        changed = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
        raise SystemExit(f'{path} holds seeds run with other settings ({", ".join(changed)}): use another --out')
    return stored['results']


def write_summary(path: Path, args, results: list) -> None:
    """Every finished seed so far, sorted by seed, written to a temporary file and then renamed."""
    tmp = path.with_suffix('.json.tmp')
    tmp.write_text(json.dumps(dict(args=vars(args), results=sorted(results, key=lambda r: r['seed'])), indent=1))
    tmp.replace(path)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument('--src', default=DEFAULT_SRC, help='their exported source tree (setup.sh)')
    ap.add_argument('--size', type=int, default=10, help='Deep Sea N')
    ap.add_argument('--seeds', type=int, nargs='+', default=[0])
    ap.add_argument('--episodes', type=int, default=10_000, help='episode cap per seed')
    ap.add_argument('--stop-when-solved', type=int, default=1, help="1: a seed stops at bsuite's solved episode")
    ap.add_argument('--min-episodes', type=int, default=0, help='with --stop-when-solved, run at least this many')
    ap.add_argument('--mapping-seed', type=int, default=42, help="bsuite's deep_sea sweep uses 42")
    ap.add_argument('--out', default='pe_dqn_oracle_out')
    ap.add_argument('--print-every', type=int, default=100)
    ap.add_argument('--threads', type=int, default=1, help='torch CPU threads')
    g = ap.add_argument_group("hyperparameters (paper Table 4 where it gives them; README.md lists each source)")
    g.add_argument('--hidden', type=int, nargs='+', default=[512], help='Table 4: [512]')
    g.add_argument('--init', default='he_truncated_normal', choices=['he_truncated_normal', 'torch_default'])
    g.add_argument('--n-heads', type=int, default=101, help='K, atoms and quantiles (Table 4: 101)')
    g.add_argument('--q-min', type=float, default=-1.0)
    g.add_argument('--q-max', type=float, default=1.0)
    g.add_argument('--lr', type=float, default=5e-4, help='Table 4')
    g.add_argument('--adam-eps', type=float, default=0.001 / 128, help='Table 4: 0.001/batch size')
    g.add_argument('--prior-beta', type=float, default=20.0, help='Table 4: 20 (QR) / 0 (C51)')
    g.add_argument('--init-beta', type=float, default=5.0, help='Table 4')
    g.add_argument('--final-beta', type=float, default=0.0, help='App. B.2 text: decayed to 0 (Table 4 prints 5.0)')
    g.add_argument('--beta-decay-episodes', type=int, default=3300, help='Table 4: 0.33 x 10,000 bsuite episodes')
    g.add_argument('--gamma', type=float, default=0.99, help='Table 4')
    g.add_argument('--gamma-i', type=float, default=0.99, help='bonus discount (Table 4 gives one discount)')
    g.add_argument('--batch-size', type=int, default=128, help='Table 4')
    g.add_argument('--buffer-size', type=int, default=10_000, help='Table 4')
    g.add_argument('--burnin', type=int, default=128, help='transitions before learning (paper silent)')
    g.add_argument(
        '--burnin-uncertainty',
        type=int,
        default=128,
        help='transitions before the bonus models learn (code: 200,000, above the 10,000 replay)',
    )
    g.add_argument('--sync-every', type=int, default=4, help='target copy period in steps (Table 4: 4)')
    g.add_argument('--train-count', type=int, default=1, help='SGD steps per env step (Table 4: update frequency 1)')
    g.add_argument('--n-step', type=int, default=1, help='paper silent for bsuite (VizDoom: 10)')
    g.add_argument('--replay', default='fixed', choices=['fixed', 'authors'], help="n-step put: fixed or their code's")
    g.add_argument('--per', type=int, default=0, help='prioritized replay (the paper: VizDoom only)')
    g.add_argument('--per-beta0', type=float, default=0.45)
    g.add_argument('--per-time-steps', type=int, default=100_000)
    g.add_argument('--normalize-ri', type=int, default=0, help='running-std intrinsic reward (the paper: VizDoom only)')
    g.add_argument('--mean-adjustment-ri', type=float, default=1.0)
    g.add_argument('--episodic-ri', type=int, default=1, help='bonus does not bootstrap over episode ends')
    g.add_argument('--max-grad-norm', type=float, default=float('inf'), help='code/VizDoom: 10; paper bsuite silent')
    g.add_argument('--init-eps', type=float, default=0.0)
    g.add_argument('--final-eps', type=float, default=0.0)
    g.add_argument('--eps-decay-steps', type=int, default=1)
    args = ap.parse_args()
    assert args.batch_size <= args.burnin, 'their sampler needs burnin >= batch size'
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    authors = import_authors(args.src)
    results = finished_seeds(out / 'summary.json', args)
    for seed in args.seeds:
        if any(r['seed'] == seed for r in results):
            print(f'N={args.size} seed {seed}: in {out / "summary.json"} already, skipped', flush=True)
            continue
        r = run_seed(authors, args, seed, out)
        results.append(r)
        print(
            f"N={args.size} seed {seed}: first treasure {r['first_treasure'] or '-'}, solved at "
            f"{r['solved_at'] or '-'} (beats dithering: {r['beats_dithering']}), {r['episodes_run']} episodes, "
            f"{r['seconds_per_episode']:.3f} s/episode",
            flush=True,
        )
        write_summary(out / 'summary.json', args, results)
    print(f"{'seed':>5} {'first treasure':>15} {'solved at':>10} {'beats dithering':>16} {'s/episode':>10}")
    for r in results:
        print(
            f"{r['seed']:>5} {r['first_treasure'] or '-':>15} {r['solved_at'] or '-':>10} "
            f"{str(r['beats_dithering']):>16} {r['seconds_per_episode']:>10.3f}"
        )


if __name__ == '__main__':
    main()
