# nbdev 2's standard setup.py: every setting lives in settings.ini; edit there, not here.
from configparser import ConfigParser
import setuptools
import shlex

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected:
    assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o: cfg[o] for o in cfg_keys}

licenses = {
    'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License'),
    'mit': ('MIT License', 'OSI Approved :: MIT License'),
    'gpl2': ('GNU General Public License v2', 'OSI Approved :: GNU General Public License v2 (GPLv2)'),
    'gpl3': ('GNU General Public License v3', 'OSI Approved :: GNU General Public License v3 (GPLv3)'),
    'bsd3': ('BSD License', 'OSI Approved :: BSD License'),
}
statuses = [
    '0 - Pre-Planning',
    '1 - Planning',
    '2 - Pre-Alpha',
    '3 - Alpha',
    '4 - Beta',
    '5 - Production/Stable',
    '6 - Mature',
    '7 - Inactive',
]
py_versions = '3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13'.split()

requirements = shlex.split(cfg.get('requirements', ''))
if cfg.get('pip_requirements'):
    requirements += shlex.split(cfg.get('pip_requirements', ''))
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
dev_requirements = shlex.split(cfg.get('dev_requirements') or '')
benchmark_requirements = shlex.split(cfg.get('benchmark_requirements') or '')
docs_requirements = shlex.split(cfg.get('docs_requirements') or '')  # tools/docs.py; dev includes them
app_requirements = shlex.split(cfg.get('app_requirements') or '')  # uncertain-rl app; dev includes them
cluster_requirements = shlex.split(cfg.get('cluster_requirements') or '')  # uncertain-rl suite submit; dev too
tracker_requirements = {k: shlex.split(cfg.get(f'{k}_requirements') or '') for k in ('tensorboard', 'wandb')}

package_data = dict()
pkg_data = cfg.get('package_data', None)
if pkg_data:
    package_data[cfg['lib_name']] = pkg_data.split()
setup_cfg['package_data'] = package_data

setuptools.setup(
    name=cfg['lib_name'],
    license=lic[0],
    classifiers=[
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ]
    + ['Programming Language :: Python :: ' + o for o in py_versions[py_versions.index(min_python) :]]
    + (['License :: ' + lic[1]] if lic[1] else []),
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=[cfg['lib_name'], cfg['lib_name'] + '.*']),
    include_package_data=True,
    install_requires=requirements,
    extras_require={
        'dev': dev_requirements
        + docs_requirements
        + app_requirements
        + cluster_requirements
        + tracker_requirements['tensorboard']
        + tracker_requirements['wandb'],
        'docs': docs_requirements,
        'app': app_requirements,
        'cluster': cluster_requirements,
        'benchmark': benchmark_requirements,
        **tracker_requirements,
    },
    dependency_links=cfg.get('dep_links', '').split(),
    python_requires='>=' + cfg['min_python'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    zip_safe=False,
    entry_points={
        'console_scripts': cfg.get('console_scripts', '').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d'],
    },
    **setup_cfg,
)
