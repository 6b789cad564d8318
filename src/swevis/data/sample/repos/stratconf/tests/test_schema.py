import pytest

from stratconf import Boolean, Choice, Float, Integer, List, Schema, String, ValidationError


def test_integer_coerces_strings():
    assert Integer().clean(" 1_000 ") == 1000


def test_integer_rejects_fraction_and_bool():
    with pytest.raises(ValueError):
        Integer().clean(1.5)
    with pytest.raises(ValueError):
        Integer().clean(True)


def test_range_checks():
    with pytest.raises(ValueError, match="maximum"):
        Float(maximum=1.0).clean("1.5")


@pytest.mark.parametrize("text,expected", [("yes", True), ("On", True), ("0", False), ("off", False)])
def test_boolean_words(text, expected):
    assert Boolean().clean(text) is expected


def test_boolean_rejects_garbage():
    with pytest.raises(ValueError):
        Boolean().clean("maybe")


def test_list_splits_strings():
    assert List(Integer()).clean("1, 2,3") == [1, 2, 3]


def test_choice_and_pattern():
    with pytest.raises(ValueError):
        Choice(["a", "b"]).clean("c")
    with pytest.raises(ValueError):
        String(pattern=r"[a-z]+").clean("ABC")


def test_schema_collects_all_errors(app_schema):
    with pytest.raises(ValidationError) as info:
        app_schema.validate({"db": {"port": "99999"}, "workers": "zero"})
    keys = [key for key, _ in info.value.errors]
    assert keys == ["db.port", "workers"]


def test_required_field():
    schema = Schema({"token": String()})
    with pytest.raises(ValidationError, match="token: is required"):
        schema.validate({})


def test_strict_schema_rejects_unknown_keys():
    schema = Schema({"a": Integer(default=1)}, strict=True)
    with pytest.raises(ValidationError, match="unknown key"):
        schema.validate({"a": 1, "b": 2})


def test_defaults_tree(app_schema):
    defaults = app_schema.defaults()
    assert defaults["db"]["port"] == 5432
    assert defaults["tags"] == []
