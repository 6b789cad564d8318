import pytest

from stratconf import Loader, ValidationError, explain, load


def test_defaults_only(app_schema):
    config = Loader(app_schema).load()
    assert config["db.port"] == 5432
    assert config.app.name == "demo"


def test_file_then_env_precedence(app_schema, write):
    path = write("app.ini", "[db]\nhost = filehost\nport = 6000\n")
    config = load(path, env_prefix="APP_", schema=app_schema,
                  environ={"APP_DB__PORT": "7000"})
    assert config["db.host"] == "filehost"
    assert config["db.port"] == 7000


def test_overrides_win(app_schema, write):
    path = write("app.json", '{"workers": 3}')
    config = load(path, schema=app_schema, overrides={"workers": 8, "app.debug": "yes"})
    assert config.workers == 8
    assert config.app.debug is True


def test_validation_error_from_env(app_schema):
    loader = Loader(app_schema).add_env("APP_", environ={"APP_WORKERS": "0"})
    with pytest.raises(ValidationError, match="workers"):
        loader.load()


def test_config_mapping_interface(app_schema):
    config = Loader(app_schema).add_dict({"tags": "a,b"}).load()
    assert config.tags == ["a", "b"]
    assert config.get("db.missing", "d") == "d"
    assert "db" in config
    assert config.as_dict()["app"]["level"] == "info"
    with pytest.raises(AttributeError):
        config.nothing


def test_explain_lists_sources(write):
    path = write("a.ini", "[db]\nport = 1\n")
    loader = Loader().add_file(path).add_dict({"db": {"port": 2}}, name="cli")
    assert explain(loader, "db.port") == [(str(path), "1"), ("cli", 2)]


def test_no_schema_keeps_strings(write):
    path = write("a.ini", "[x]\ny = 5\n")
    assert Loader().add_file(path).load()["x.y"] == "5"
