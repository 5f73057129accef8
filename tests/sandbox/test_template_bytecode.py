"""A template's modules are found compiled: the dealer writes dp-arena's bytecode once
before its first template or exec'd seat starts (either sees the package read-only, and
would otherwise compile the zygote, the runner and the rest at each start)."""

from __future__ import annotations

import importlib.util
import os
import py_compile

import pytest

from dp_arena.sandbox.bot import zygote
from dp_arena.sandbox.dealer import template


def _zygote_bytecode() -> str:
    assert zygote.__file__ is not None
    return importlib.util.cache_from_source(zygote.__file__)


@pytest.fixture
def no_zygote_bytecode():
    path = _zygote_bytecode()
    if not os.access(os.path.dirname(path), os.W_OK):
        pytest.skip("dp-arena's own folder is read-only here: its bytecode cannot be written")
    if os.path.exists(path):
        os.remove(path)
    yield path
    if not os.path.exists(path):  # as it was found, for the templates of later tests
        py_compile.compile(str(zygote.__file__), cfile=path)


def test_the_dealer_writes_the_bytecode_a_template_will_read(no_zygote_bytecode, monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    template.write_bytecode_once.__wrapped__()
    assert os.path.exists(no_zygote_bytecode)
    with open(no_zygote_bytecode, "rb") as written:
        assert written.read(4) == importlib.util.MAGIC_NUMBER


def test_no_bytecode_is_written_when_it_is_turned_off(no_zygote_bytecode, monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    template.write_bytecode_once.__wrapped__()
    assert not os.path.exists(no_zygote_bytecode)
