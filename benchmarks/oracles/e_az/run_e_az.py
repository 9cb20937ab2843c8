"""Driver for the E-AZ oracle: the authors' JAX E-AlphaZero (github.com/emcts/e-alphazero, on pgx and their emctx
fork of mctx) on their own Deep Sea (issue 43) or subleq (issue 63), per seed, with interactions until the first
reward: Deep Sea's goal, or subleq's first correct program.

Nothing of theirs is copied here. Each (agent, seed) runs in a fresh child interpreter that puts their ``src/`` on
``sys.path`` and executes their ``src/main.py`` unchanged with ``runpy`` (their CLI: omegaconf ``key=value`` pairs).
Before that, five of their functions are wrapped in place, in their own modules, for measurement only:

* ``selfplay.uniformrandomplay`` and ``selfplay.selfplay`` (src/selfplay.py:153, :79): the wrappers read the env
  states the call returns, count frames (their unit, main.py:378-379: ``selfplay_batch_size * selfplay_steps`` per
  call, i.e. every parallel env step, a reset step included) and env transitions (the same without reset steps), and
  find the first step whose post-step state carries a reward (their Deep Sea pays reward only at the goal,
  envs/deep_sea.py:72-78). They stop the run by raising once the goal was reached (unless ``--no-stop``) or the
  frame budget is spent;
* ``reanalyze.reanalyze``, ``train.train`` and ``evaluate.evaluate``: timed only (first call = compile + run).

``main.py`` imports these names (main.py:24-27) when it runs, after the wrappers are in place, so it calls them.
Their own first-reward number (main.py:354-359, logged only in self-play after the random warm-up and rounded up to
whole iterations) is recorded beside ours as ``their_frames_to_first_reward`` (computed by their rule in the wrapper,
since the driver stops the run before their print; ``their_frames_to_first_reward_printed`` is the printed one).

Usage (see README.md):  python run_e_az.py --out OUT --size 10 --seeds 0 1 --budget 50000 [--agents eaz az]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SRC = os.environ.get("E_AZ_SRC", "/work/oracles/e_az_src")

# Agents their code can run. E-AZ: directed exploration on (selfplay.py:92-105 uses the exploration policy head and
# beta = exploration_beta * linspace(0, 1, batch) per parallel game). AZ: directed_exploration=False, which forces
# exploration_beta = 0 (config.py:172) and acts with the exploitation head; hash novelty and UBE are still trained
# but not used for acting. Their JAX code has no AZ+UBE agent (UBE without EMCTS propagation).
AGENTS = {
    "eaz": {"directed_exploration": True},
    "eaz_full": {"directed_exploration": True, "subleq_hash_only_io": False},  # subleq: hash the whole observation
    "az": {"directed_exploration": False},
}
# Their environments: the env_id their main.py builds (main.py:150-170) and their frames per iteration, the parallel
# games times the steps of one self-play call (config.py:102-130: Deep Sea 16 x 8; subleq 128 x their default 32).
ENVS = {"deep_sea": 16 * 8, "subleq": 128 * 32}
TASKS = {"negate_positives": "NEGATION_POSITIVE", "identity": "IDENTITY"}  # ours -> their SubleqTask names


def cli_overrides(a, agent, seed):
    """Their config (src/config.py) as omegaconf key=value pairs."""
    kv = {
        "env_class": "custom",
        "env_id": f"deep_sea-{a.size}" if a.env == "deep_sea" else f"subleq-{a.size}",
        "seed": seed,
        "track": False,  # no wandb
        "exploration_beta": a.beta,
        "maximum_number_of_iterations": a.max_iterations,
        "results_path": "./evaluation_results",
    }
    if a.env == "subleq":
        kv["subleq_tasks"] = f"[{TASKS[a.task]}]"
    kv.update({k: v for k, v in AGENTS[agent].items() if a.env == "subleq" or not k.startswith("subleq")})
    for item in a.set or []:
        k, v = item.split("=", 1)
        kv[k] = v
    return [f"{k}={v}" for k, v in kv.items()]


# ---------------------------------------------------------------------------------------------------------------
# child: one run of their main.py
# ---------------------------------------------------------------------------------------------------------------
class _Stop(Exception):
    pass


def child(a):
    src = os.path.join(a.src, "src")
    sys.path.insert(0, src)
    os.makedirs(a.run_dir, exist_ok=True)
    os.chdir(a.run_dir)  # their main writes ./checkpoints and ./evaluation_results

    import jax
    import numpy as np

    import evaluate as their_evaluate
    import reanalyze as their_reanalyze
    import selfplay as their_selfplay
    import train as their_train

    rec = {
        "frames": 0,
        "env_steps": 0,
        "goal_frames": None,
        "goal_env_steps": None,
        "goal_phase": None,
        "goal_episodes": 0,
        "episodes": 0,
        "calls": {},
        "t0": time.time(),
        "first_goal_wall_s": None,
        "their_frames_to_first_reward": None,
    }

    def timed(name, fn):
        def wrapped(*args, **kw):
            t = time.time()
            out = fn(*args, **kw)
            jax.block_until_ready(out)
            dt = time.time() - t
            c = rec["calls"].setdefault(name, {"n": 0, "first_s": None, "rest_s": 0.0})
            if c["first_s"] is None:
                c["first_s"] = dt
            else:
                c["rest_s"] += dt
            c["n"] += 1
            return out

        return wrapped

    def account(pre, post, phase):
        """pre/post: [steps, batch] arrays of the states before / after each scan step (device axis dropped)."""
        rewards = np.asarray(post.rewards).reshape(post.rewards.shape[0], post.rewards.shape[1], -1).sum(-1)
        pre_term = np.asarray(pre.terminated) | np.asarray(pre.truncated)
        post_term = np.asarray(post.terminated)
        steps, batch = rewards.shape
        real = ~pre_term  # a step from a terminal state is their auto-reset (selfplay.py:66-71), no transition
        goal = (rewards > 0) & real
        if rec["goal_frames"] is None and goal.any():
            t = int(np.argmax(goal.any(axis=1)))
            rec["goal_frames"] = rec["frames"] + (t + 1) * batch
            rec["goal_env_steps"] = rec["env_steps"] + int(real[: t + 1].sum())
            rec["goal_phase"] = phase
            rec["first_goal_wall_s"] = time.time() - rec["t0"]
        rec["goal_episodes"] += int(goal.sum())
        rec["episodes"] += int((post_term & real).sum())
        rec["frames"] += steps * batch
        rec["env_steps"] += int(real.sum())

    def stop_check():
        if rec["goal_frames"] is not None and not a.no_stop:
            raise _Stop("goal")
        if rec["frames"] >= a.budget:
            raise _Stop("budget")

    take0 = lambda tree: jax.tree.map(lambda x: np.asarray(x[0]), tree)  # drop the pmap device axis (1 CPU device)

    urp = timed("uniformrandomplay", their_selfplay.uniformrandomplay)

    def uniformrandomplay(config, context, rng_key):
        last_states, states = urp(config, context, rng_key)
        # selfplay.py:162 returns the pre-step states; post-step = states[1:] followed by last_states
        pre, last = take0(states), take0(last_states)
        post = jax.tree.map(lambda s, l: np.concatenate([s[1:], l[None]], 0), pre, last)
        account(pre, post, "random")
        stop_check()
        return last_states, states

    sp = timed("selfplay", their_selfplay.selfplay)

    def selfplay(model, config, context, last_states, rng_key):
        out = sp(model, config, context, last_states, rng_key)
        _, data = out
        post, start = take0(data.state), take0(last_states)
        # selfplay.py:136 returns the post-step states; pre-step = last_states followed by states[:-1]
        pre = jax.tree.map(lambda l, s: np.concatenate([l[None], s[:-1]], 0), start, post)
        if rec["their_frames_to_first_reward"] is None and float(np.asarray(post.rewards).sum()) > 0:
            # their own count (main.py:354-357): frames after the first self-play call with any reward
            rec["their_frames_to_first_reward"] = rec["frames"] + a.frames_per_iter
        account(pre, post, "selfplay")
        stop_check()
        return out

    their_selfplay.uniformrandomplay = uniformrandomplay
    their_selfplay.selfplay = selfplay
    their_reanalyze.reanalyze = timed("reanalyze", their_reanalyze.reanalyze)
    their_train.train = timed("train", their_train.train)
    their_evaluate.evaluate = timed("evaluate", their_evaluate.evaluate)

    # their main prints the whole deep-sea UBE grid each iteration; keep it in a log, pull out their own number
    import io
    import runpy

    class Tee(io.TextIOBase):
        def __init__(self, f):
            self.f = f
            self.their_first = None

        def write(self, s):
            if self.their_first is None and "Observed first reward after frames:" in s:  # their print, main.py:357
                self.their_first = int(s.rsplit(":", 1)[1].strip().split()[0])
            return self.f.write(s)

        def flush(self):
            self.f.flush()

    log = open("their_stdout.log", "w")
    tee = Tee(log)
    sys.argv = [os.path.join(src, "main.py")] + a.their_args
    reason = "their_loop_ended"
    old = sys.stdout
    sys.stdout = tee
    try:
        runpy.run_path(os.path.join(src, "main.py"), run_name="__main__")
    except _Stop as e:
        reason = str(e)
    finally:
        sys.stdout = old
        log.close()
    wall = time.time() - rec["t0"]
    calls = rec.pop("calls")
    rec.pop("t0")
    out = {
        **rec,
        "stop": reason,
        "reached": rec["goal_frames"] is not None,
        "censored_at_frames": None if rec["goal_frames"] is not None else rec["frames"],
        "their_frames_to_first_reward_printed": tee.their_first,  # None when the driver stopped before their print
        "wall_s": wall,
        "calls": calls,
    }
    # learning phase: self-play frames over the not-first self-play + reanalyze + train (+ evaluate) calls
    n_sp = calls.get("selfplay", {}).get("n", 0)
    if n_sp > 1:
        t_learn = sum(calls.get(k, {}).get("rest_s", 0.0) for k in ("selfplay", "reanalyze", "train", "evaluate"))
        out["learn_s_per_iter"] = t_learn / (n_sp - 1)
        out["learn_frames_per_s"] = (n_sp - 1) * a.frames_per_iter / max(t_learn, 1e-9)
    first = sum(c["first_s"] or 0.0 for c in calls.values())
    out["compile_s_approx"] = first  # first calls: trace + compile + one run each
    json.dump(out, open(a.result, "w"), indent=1)


# ---------------------------------------------------------------------------------------------------------------
# parent: one child per (agent, seed), one at a time
# ---------------------------------------------------------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="output folder (results.json, results.csv, per-run folders)")
    p.add_argument("--env", default="deep_sea", choices=sorted(ENVS), help="their environment")
    p.add_argument("--task", default="negate_positives", choices=sorted(TASKS), help="subleq: the task")
    p.add_argument(
        "--size", type=int, default=10, help="Deep Sea size N (their env: N x N grid, N-1 moves); subleq: words"
    )
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    p.add_argument(
        "--budget",
        type=int,
        default=45_000,
        help="frame budget per run (their frames: every parallel env step); default 45K = Table 4's "
        "true-model budget (that table is for the paper's PyTorch Deep Sea code, see README)",
    )
    p.add_argument("--agents", nargs="+", default=["eaz", "az"], choices=sorted(AGENTS))
    p.add_argument(
        "--beta",
        type=float,
        default=10.0,
        help="exploration_beta (their default 0.0, config.py:69-71; Table 4 true-model EMCTS: 10; their "
        "subleq runs: 1.0). Ignored for az (config.py:172)",
    )
    p.add_argument("--no-stop", action="store_true", help="keep running to the budget after the goal")
    p.add_argument("--set", nargs="*", metavar="KEY=VALUE", help="further overrides of their Config (config.py)")
    p.add_argument("--src", default=DEFAULT_SRC, help="their exported tree (setup.sh)")
    p.add_argument("--python", default=os.environ.get("E_AZ_PY", "/work/venvs/e_az_oracle/bin/python"))
    # child mode
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--run-dir", help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
    p.add_argument("--frames-per-iter", type=int, default=128, help=argparse.SUPPRESS)
    p.add_argument("--their-args", nargs="*", default=[], help=argparse.SUPPRESS)
    a = p.parse_args()
    fpi = ENVS[a.env]
    a.max_iterations = math.ceil(a.budget / fpi) + 1
    if a.child:
        return child(a)
    if not a.out:
        p.error("--out is required")

    os.makedirs(a.out, exist_ok=True)
    rows = []
    for agent in a.agents:
        for seed in a.seeds:
            name = f"{agent}_N{a.size}_s{seed}" if a.env == "deep_sea" else f"{agent}_{a.task}_s{seed}"
            run_dir = os.path.abspath(os.path.join(a.out, name))
            result = os.path.join(run_dir, "result.json")
            os.makedirs(run_dir, exist_ok=True)
            their = cli_overrides(a, agent, seed)
            cmd = [
                a.python,
                os.path.abspath(__file__),
                "--child",
                "--run-dir",
                run_dir,
                "--result",
                result,
                "--src",
                a.src,
                "--budget",
                str(a.budget),
                "--frames-per-iter",
                str(fpi),
            ]
            if a.no_stop:
                cmd.append("--no-stop")
            cmd += ["--their-args", *their]
            t = time.time()
            with open(os.path.join(run_dir, "driver.log"), "w") as f:
                rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
            row = {
                "agent": agent,
                "env": a.env,
                "task": a.task,
                "size": a.size,
                "seed": seed,
                "rc": rc,
                "their_args": their,
            }
            if rc == 0 and os.path.exists(result):
                row.update(json.load(open(result)))
            row["process_wall_s"] = time.time() - t
            rows.append(row)
            print(
                json.dumps(
                    {
                        k: row.get(k)
                        for k in (
                            "agent",
                            "size",
                            "seed",
                            "rc",
                            "reached",
                            "goal_frames",
                            "goal_env_steps",
                            "goal_phase",
                            "frames",
                            "wall_s",
                            "compile_s_approx",
                            "learn_s_per_iter",
                            "learn_frames_per_s",
                        )
                    }
                ),
                flush=True,
            )
            json.dump(rows, open(os.path.join(a.out, "results.json"), "w"), indent=1)
    keys = [
        "agent",
        "size",
        "seed",
        "rc",
        "reached",
        "goal_frames",
        "goal_env_steps",
        "goal_phase",
        "censored_at_frames",
        "their_frames_to_first_reward",
        "frames",
        "env_steps",
        "goal_episodes",
        "episodes",
        "stop",
        "wall_s",
        "compile_s_approx",
        "learn_s_per_iter",
        "learn_frames_per_s",
    ]
    with open(os.path.join(a.out, "results.csv"), "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(k) is None else str(r.get(k)) for k in keys) + "\n")


if __name__ == "__main__":
    main()
