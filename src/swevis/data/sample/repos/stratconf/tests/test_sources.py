import pytest

from stratconf import SourceError
from stratconf.sources import DictSource, EnvSource, IniSource, JsonSource, source_for_path


def test_env_source_nests_and_lowercases():
    env = {"APP_DB__HOST": "db1", "APP_WORKERS": "4", "OTHER": "x"}
    assert EnvSource("APP_", environ=env).load() == {"db": {"host": "db1"}, "workers": "4"}


def test_env_source_needs_prefix():
    with pytest.raises(ValueError):
        EnvSource("")


def test_ini_source_dotted_sections(write):
    path = write("c.ini", "[db]\nhost = a\n\n[db.replica]\nhost = b\n")
    assert IniSource(path).load() == {"db": {"host": "a", "replica": {"host": "b"}}}


def test_json_source(write):
    path = write("c.json", '{"db": {"port": 5433}}')
    assert JsonSource(path).load() == {"db": {"port": 5433}}


def test_json_top_level_must_be_object(write):
    path = write("c.json", "[1, 2]")
    with pytest.raises(SourceError, match="must be an object"):
        JsonSource(path).load()


def test_missing_file(tmp_path):
    with pytest.raises(SourceError, match="file not found"):
        IniSource(tmp_path / "nope.ini").load()
    assert IniSource(tmp_path / "nope.ini", optional=True).load() == {}


def test_file_interpolation_within_file(write):
    path = write("c.ini", "[db]\nhost = h\nurl = pg://${db.host}/x\n")
    assert IniSource(path).load()["db"]["url"] == "pg://h/x"


def test_source_for_path(tmp_path):
    assert isinstance(source_for_path(tmp_path / "a.cfg"), IniSource)
    with pytest.raises(ValueError):
        source_for_path(tmp_path / "a.yaml")


def test_dict_source_flat():
    assert DictSource({"a.b": 1}, flat=True).load() == {"a": {"b": 1}}
