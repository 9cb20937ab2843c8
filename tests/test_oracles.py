"""The authors' code's committed results (`benchmarks/results/oracles/`) are what their committed logs give: the
summary the Results page reads is recomputed here from the oracle's CSV logs by the same script, and the Table 1
statistic of that script is checked against a hand-worked log."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

ORACLES = ROOT / 'benchmarks' / 'results' / 'oracles'
TABLE1 = ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'table1.py'


@pytest.mark.data
def test_the_committed_iv_rl_summary_is_what_its_logs_give(tmp_path):
    committed = json.loads((ORACLES / 'iv_dqn_cartpole_as_run.json').read_text())
    note = committed['summary'].split(': ')[0]
    subprocess.run(
        [
            sys.executable,
            str(TABLE1),
            str(ORACLES / 'iv_rl' / 'as_run_noise_0.1'),
            '--finished-only',
            '--summary-out',
            str(tmp_path / 's.json'),
            '--note',
            note,
        ],
        check=True,
        capture_output=True,
    )
    assert json.loads((tmp_path / 's.json').read_text()) == committed


def test_table1_counts_the_first_episode_whose_running_mean_reaches_750(tmp_path):
    "A hand-worked log: returns 500, 1000, 1000, ... reach a running mean of 750 at episode 2 (mean of 500 and 1000)."
    folder = tmp_path / 'seed_0' / 'cartpole_noise' / 'X_bs_64_mask_1.0_mebs1.0_lossatt_1.0'
    folder.mkdir(parents=True)
    rows = ['steps,episode,total_return,episode_len,episode_return']
    total = 0
    for e, r in enumerate([500, 1000, 1000, 200], 1):
        total += r
        rows.append(f'{e * 1000},{e},{total},1000,{r}')
    (folder / 'bsuite_id_-_cartpole_noise-0.csv').write_text('\n'.join(rows) + '\n')
    (folder / 'run.json').write_text('{}')
    subprocess.run(
        [sys.executable, str(TABLE1), str(tmp_path), '--finished-only', '--summary-out', str(tmp_path / 's.json')],
        check=True,
        capture_output=True,
    )
    group = next(iter(json.loads((tmp_path / 's.json').read_text())['groups'].values()))
    assert group['solved'] == 1 and group['percentiles'] == ['2', '2', '2']


PE_DQN_ORACLE = ROOT / 'benchmarks' / 'results' / 'pe_dqn_oracle'
COMPARE = ROOT / 'benchmarks' / 'oracles' / 'pe_dqn' / 'compare.py'


def bsuite_solved(total_bad: list) -> int:
    "bsuite's Deep Sea rule (`deep_sea/analysis.py`, find_solution): the first episode with bad / episode < 0.9."
    return next((e for e, bad in enumerate(total_bad, 1) if bad / e < 0.9), 0)


@pytest.mark.data
def test_the_pe_dqn_oracle_summaries_are_what_their_episode_logs_give():
    "Per seed of the authors' PE-DQN: the summary's first treasure and solved episode, recomputed from its CSV log."
    folders = sorted(p.parent for p in PE_DQN_ORACLE.glob('n*/summary.json'))
    assert folders, 'no committed PE-DQN oracle run'
    for folder in folders:
        for r in json.loads((folder / 'summary.json').read_text())['results']:
            lines = (folder / f"episodes_N{r['size']}_seed{r['seed']}.csv").read_text().splitlines()
            rows = [dict(zip(lines[0].split(','), line.split(','))) for line in lines[1:]]
            assert [int(x['episode']) for x in rows] == list(range(1, len(rows) + 1))
            assert len(rows) == r['episodes_run']
            assert bsuite_solved([int(x['total_bad_episodes']) for x in rows]) == r['solved_at']
            assert next((int(x['episode']) for x in rows if x['treasure'] == '1'), 0) == r['first_treasure']


def same_json(a, b, path='') -> list:
    """Where two JSON documents differ: the same keys, lists, strings and integers, and floats equal to 1e-12 relative
    (the last bit of a float can differ between CPUs, e.g. an exp of a sum on an Intel Xeon and an AMD EPYC)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f'{path}: keys {sorted(a)} != {sorted(b)}']
        return [d for k in a for d in same_json(a[k], b[k], f'{path}/{k}')]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f'{path}: {len(a)} items != {len(b)}']
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in same_json(x, y, f'{path}[{i}]')]
    if isinstance(a, float) and isinstance(b, float):
        return [] if np.isclose(a, b, rtol=1e-12, atol=0) else [f'{path}: {a!r} != {b!r}']
    return [] if (type(a), a) == (type(b), b) else [f'{path}: {a!r} != {b!r}']


def test_same_json_can_fail():
    "The comparison above finds a changed float, string, key or length, and lets the last bit of a float pass."
    assert same_json({'a': [1.0, 'x']}, {'a': [1.0 + 1e-15, 'x']}) == []
    assert same_json({'a': [1.0]}, {'a': [1.001]}) and same_json({'a': 'x'}, {'a': 'y'})
    assert same_json({'a': 1}, {'b': 1}) and same_json([1], [1, 2]) and same_json({'a': 1}, {'a': 1.0})


def script_module(path: Path):
    "A benchmark script (not a package module) imported from its file, to call its functions."
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recomputed(script: Path, args: list, tmp_path) -> dict:
    "The summary JSON that `script ARGS --summary-out` writes now."
    out = tmp_path / 's.json'
    subprocess.run([sys.executable, str(script), *args, '--summary-out', str(out)], check=True, capture_output=True)
    return json.loads(out.read_text())


def committed_lines(pattern: str) -> list:
    "The committed oracle lines (JSON) whose file names match `pattern`; at least one must be committed."
    paths = sorted(ORACLES.glob(pattern))
    assert paths, f'no committed {pattern}'
    return [json.loads(p.read_text()) for p in paths]


@pytest.mark.data
def test_the_committed_pe_dqn_comparison_is_what_the_summaries_give(tmp_path):
    "The Results page's line for the authors' PE-DQN, recomputed by compare.py from the committed summaries."
    for data in committed_lines('pe_dqn_scaling_n??.json'):
        n = data['size']
        groups = [
            f'--{g}={PE_DQN_ORACLE / f"{d}{n}"}'
            for g, d in (('theirs', 'n'), ('ours', 'ours_n'), ('boot', 'boot_n'))
            if (PE_DQN_ORACLE / f'{d}{n}' / 'summary.json').exists()  # our PE-DQN may still be running
        ]
        assert same_json(recomputed(COMPARE, ['--size', str(n), *groups], tmp_path), data) == []


@pytest.mark.data
def test_the_committed_pe_dqn_growth_test_is_what_the_two_summaries_give(tmp_path):
    "The growth-with-N line, recomputed by compare.py --growth from the two committed summaries."
    (data,) = committed_lines('pe_dqn_scaling_n14_growth.json')
    paths = [str(ORACLES / f'pe_dqn_scaling_n{n}.json') for n in (10, 14)]
    assert same_json(recomputed(COMPARE, ['--growth', *paths], tmp_path), data) == []
    assert all(g['holm'] >= 0.05 for g in data['tests']) == data['summary'].endswith('withdrawn at these sizes')


def test_pe_dqn_growth_by_hand(tmp_path):
    """The interaction test by hand: a ratio of 2 at both sizes has not changed (x1, p = 1); 2 then 1, each with a 95%
    interval of x/÷ e^0.196 (se 0.1 on the log scale), has changed by x0.5 with z = log 2 / (0.1 sqrt 2)."""
    from scipy.stats import norm

    mod = script_module(COMPARE)
    w = np.exp(norm.isf(0.025) * 0.1)
    line = lambda n, r: dict(size=n, tests={'a / b': dict(ratio=r, low=r / w, high=r * w)})
    same = mod.growth(line(10, 2.0), line(14, 2.0), 'a / b')
    assert np.isclose(same['change'], 1.0) and np.isclose(same['p'], 1.0)
    half = mod.growth(line(10, 2.0), line(14, 1.0), 'a / b')
    assert np.isclose(half['change'], 0.5) and np.isclose(half['p'], 2 * norm.sf(np.log(2) / (0.1 * np.sqrt(2))))


@pytest.mark.data
def test_the_committed_iv_rl_comparison_is_what_both_sides_logs_give(tmp_path):
    """The Results page's line for our agents beside the authors' IV-RL code, recomputed by compare.py from their
    committed training logs and our arms' committed returns."""
    (data,) = committed_lines('iv_dqn_cartpole_ours_as_run.json')
    args = [
        '--theirs',
        str(ORACLES / 'iv_rl' / 'as_run_noise_0.1'),
        '--ours',
        str(ORACLES / 'iv_rl' / 'ours_noise_0.1'),
    ]
    assert same_json(recomputed(ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'compare.py', args, tmp_path), data) == []


@pytest.mark.data
def test_the_committed_five_scale_iv_rl_comparison_is_what_both_sides_logs_give(tmp_path):
    """The Results page's line over the five noise scales (`compare.py --scales`), recomputed from their committed runs
    (noise 0.1 and sweep.sh's ids 4-19) and our arms' committed returns at each scale."""
    (data,) = committed_lines('iv_dqn_cartpole_ours_scales.json')
    args = [
        '--scales',
        '0.1:all,0.3:4-7,1:8-11,3:12-15,10:16-19',
        '--theirs',
        str(ORACLES / 'iv_rl' / 'as_run_noise_0.1'),
        '--sweep',
        str(ORACLES / 'iv_rl' / 'as_run_sweep'),
        '--ours',
        str(ORACLES / 'iv_rl'),
    ]
    assert same_json(recomputed(ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'compare.py', args, tmp_path), data) == []
    # the finding it states: their BootstrapDQN sooner than ours over the scales, and at noise 10 every pair differs
    assert data['stratified']['their BootstrapDQN / our Bootstrapped DQN']['holm'] < 0.05
    assert all(
        data['per_scale']['10'][f'{a} / {b}']['holm'] < 0.05
        for a, b in (
            ('their BootstrapDQN', 'our Bootstrapped DQN'),
            ('their IV_DQN', 'our IV-DQN (uniform)'),
            ('their IV_DQN', 'our IV-DQN (BIV, ξ = 5)'),
        )
    )


def test_iv_rl_compare_censors_a_run_that_never_reaches_750(tmp_path):
    """compare.py on hand-made arms: a run whose running mean never reaches 750 counts as censored at its last
    episode, one that does at its first such episode (500 then 1000s: episode 2)."""
    compare = script_module(ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'compare.py')
    (tmp_path / 'boot').mkdir()
    (tmp_path / 'boot' / 'summary.json').write_text(json.dumps({'returns': [[500, 1000, 1000], [100] * 5]}))
    g = compare.load_ours(tmp_path, 'boot')
    assert g['times'].tolist() == [2, 5] and g['events'].tolist() == [True, False]
    assert compare.quartiles(g) == '2-2-cens.'  # nearest rank: round(0.5) = 0


def test_iv_rl_compare_takes_one_noise_scale_of_the_sweep(tmp_path):
    """compare.py --ids on hand-made runs of their sweep (seed k ran cartpole_noise/k): only the ids asked for are
    read, a run without its run.json is not finished, and a bad --ids is a one-line error."""
    compare = script_module(ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'compare.py')
    # returns 0, then 1000 for the last 75 episodes: the 100-episode mean reaches 750 exactly at `solved` (>= 100)
    for seed, solved in ((3, 120), (4, 110), (5, 130), (7, 150), (8, 160)):
        run = tmp_path / f'seed_{seed}' / 'cartpole_noise' / 'IV_DQN_bs_64'
        (run / 'train').mkdir(parents=True)
        returns = [1000.0 if e > solved - 75 else 0.0 for e in range(1, solved + 1)]
        lines = [f'{e},{sum(returns[:e])},{r}\n' for e, r in enumerate(returns, 1)]
        (run / 'train' / 'log.csv').write_text('episode,total_return,episode_return\n' + ''.join(lines))
        if seed != 7:
            (run / 'run.json').write_text('{}')
    everything = compare.load_theirs(tmp_path, 'IV_DQN')
    assert sorted(everything['times'].tolist()) == [110, 120, 130, 160] and everything['events'].all()
    scale = compare.load_theirs(tmp_path, 'IV_DQN', compare.parse_ids('4-7'))
    assert sorted(scale['times'].tolist()) == [110, 130] and scale['events'].all()
    assert compare.parse_ids('8').start == 8 and len(compare.parse_ids('4-7')) == 4
    for bad in ('7-4', 'x', '4-', '-4'):
        with pytest.raises(SystemExit, match='--ids must be'):
            compare.parse_ids(bad)


def test_table1s_mann_whitney_is_scipys():
    "The oracle's standard-library Mann-Whitney against scipy: exact without ties, and a permutation test with ties."
    import numpy as np
    from scipy import stats

    table1 = script_module(TABLE1)
    x, y = [113, 129, 148, 182, 110, 145], [114, 101, 157, 189, 129 + 0.5]
    ours = table1.mann_whitney(x, y)
    theirs = stats.mannwhitneyu(x, y, alternative='two-sided', method='exact')
    assert ours['method'] == 'exact' and ours['u'] == theirs.statistic
    assert abs(ours['p'] - theirs.pvalue) < 1e-12
    x, y = [120, 130, float('inf'), 130], [130, float('inf'), float('inf'), 150, 99]  # ties, and unsolved runs
    ours = table1.mann_whitney(x, y)
    u = lambda a, b, axis: stats.mannwhitneyu(a, b, axis=axis).statistic
    perm = stats.permutation_test(
        (np.array(x), np.array(y)), u, permutation_type='independent', n_resamples=np.inf, alternative='two-sided'
    )
    assert ours['u'] == u(np.array(x), np.array(y), 0)
    # scipy's null distribution (every split), with the two-sided rule |U - E U| >= |u - E U|
    null, mean = perm.null_distribution, len(x) * len(y) / 2
    assert null.size == 126 and abs(ours['p'] - np.mean(np.abs(null - mean) >= abs(ours['u'] - mean) - 1e-9)) < 1e-12


@pytest.mark.data
def test_the_committed_e_az_comparison_is_what_the_results_give(tmp_path):
    "The Results page's line for the authors' JAX E-AZ, recomputed from their committed results and our store."
    for data in committed_lines('e_az_learned_jax_n*.json'):
        theirs = ORACLES / 'e_az' / f"N{data['size']}" / 'results.json'
        store = ROOT / 'benchmarks' / 'results' / 'suite' / 'cpu'
        args = ['--theirs', str(theirs), '--size', str(data['size']), '--store', str(store)]
        assert (
            same_json(recomputed(ROOT / 'benchmarks' / 'oracles' / 'e_az' / 'compare.py', args, tmp_path), data) == []
        )


def load_ours():
    "benchmarks/oracles/pe_dqn/ours.py as a module (benchmarks/ is no package)."
    module = script_module(ROOT / 'benchmarks' / 'oracles' / 'pe_dqn' / 'ours.py')
    return module


@pytest.mark.long
def test_our_pe_dqn_oracle_run_resumes_where_it_was_stopped(tmp_path, monkeypatch):
    """A run stopped after its second chunk and started again ends with the per-seed results of a run never stopped
    (the loop's state, replay and logs included, comes back from the checkpoint); other settings in the same folder
    are refused, and a finished run is not run again."""
    import pytest

    from uncertain_rl.experiments import RunInterrupted

    from uncertain_rl import experiments

    ours = load_ours()
    design = '--arm boot --size 6 --seeds 2 --episodes 60 --chunks 6 --checkpoint-every 1'.split()
    run, chunks = experiments.run, []

    def counted(exp, stop_at=None, **kw):
        "`run`, counting the chunks it trains, raising KeyboardInterrupt (as on Ctrl-C) after chunk `stop_at`."

        def count(logs, episodes):
            chunks.append(1)
            if len(chunks) == stop_at:
                raise KeyboardInterrupt

        return run(dataclasses.replace(exp, on_chunk=count), **kw)

    monkeypatch.setattr(experiments, 'run', counted)
    ours.main(design + ['--out', str(tmp_path / 'whole')])
    whole, whole_chunks = json.loads((tmp_path / 'whole' / 'summary.json').read_text())['results'], len(chunks)
    assert whole_chunks > 2

    chunks.clear()
    monkeypatch.setattr(experiments, 'run', lambda exp, **kw: counted(exp, stop_at=2, **kw))
    with pytest.raises(RunInterrupted):
        ours.main(design + ['--out', str(tmp_path / 'stopped')])
    assert (tmp_path / 'stopped' / 'checkpoint').is_dir() and not (tmp_path / 'stopped' / 'summary.json').exists()
    chunks.clear()
    monkeypatch.setattr(experiments, 'run', counted)
    ours.main(design + ['--out', str(tmp_path / 'stopped')])
    assert len(chunks) < whole_chunks  # resumed, not started again
    assert json.loads((tmp_path / 'stopped' / 'summary.json').read_text())['results'] == whole
    assert not (tmp_path / 'stopped' / 'checkpoint').exists()

    with pytest.raises(ValueError, match='size'):
        ours.main([*design[:2], '--size', '7', *design[4:], '--out', str(tmp_path / 'stopped')])
    before = (tmp_path / 'whole' / 'summary.json').read_text()
    ours.main(design + ['--out', str(tmp_path / 'whole')])  # finished: nothing to do
    assert (tmp_path / 'whole' / 'summary.json').read_text() == before


@pytest.mark.data
def test_the_committed_subleq_oracle_summary_is_what_the_logs_and_the_store_give(tmp_path):
    "The authors' subleq runs beside our claim's runs: recomputed from their committed results and our store."
    folder = ORACLES / 'e_az' / 'subleq_negate'
    subprocess.run(
        [
            sys.executable,
            str(ROOT / 'benchmarks' / 'oracles' / 'e_az' / 'compare_subleq.py'),
            '--summary-out',
            str(tmp_path / 's.json'),
            '--store',
            str(ROOT / 'benchmarks' / 'results' / 'suite' / 'cpu'),
            '--theirs',
            str(folder / 'eaz.json'),
            str(folder / 'rivals.json'),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    assert json.loads((tmp_path / 's.json').read_text()) == json.loads(
        (ORACLES / 'e_az_subleq_negate_jax.json').read_text()
    )


def test_minatar_reference_moving_average_and_published_readings():
    """The MinAtar reference benchmark's moving average is the mean of the last 100 finished episodes at a frame (by
    hand), and the published DQN curve's committed readings rise with frames within the figure's axis, as the figure
    shows (Breakout: fast to about 8 by half a million frames, then flat near 10)."""
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    ref = script_module(ROOT / 'benchmarks' / 'minatar_dqn_reference.py')
    returns, lengths = np.arange(1, 151), np.full(150, 10)  # 150 episodes of 10 frames, returns 1, 2, ..., 150
    assert ref.moving_average_at(returns, lengths, [5, 10, 1000, 1500, 2000]) == [None, 1.0, 50.5, 100.5, 100.5]
    published = json.loads((ROOT / 'benchmarks/results/minatar_dqn_reference/published.json').read_text())
    values = [v for _, v in sorted((int(f), v) for f, v in published['breakout_dqn'].items())]
    assert values == sorted(values) and 0 < values[0] and values[-1] <= 19  # the panel's axis ends below 20
    assert ref.minatar_dqn_config().epsilon_decay_steps == 100_000  # MinAtar's FIRST_N_FRAMES, not a share of steps
