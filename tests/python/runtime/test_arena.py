"""Arena and the The_*_Arena accessors (API.md 2.1)."""
import os

import pytest

ACCESSORS = ["The_Arena", "The_Async_Arena", "The_Device_Arena", "The_Managed_Arena", "The_Pinned_Arena",
             "The_Cpu_Arena"]
FLAGS = ["is_device_accessible", "is_host_accessible", "is_managed", "is_device", "is_pinned",
         "is_stream_ordered_arena"]


@pytest.mark.parametrize("name", ACCESSORS)
def test_accessor_returns_the_same_arena_every_time(amr, name):
    a = getattr(amr, name)()
    b = getattr(amr, name)()
    assert isinstance(a, amr.Arena)
    assert a == b and not (a != b) and hash(a) == hash(b)
    assert a.name == name


def test_different_arenas_differ(amr):
    arenas = [getattr(amr, n)() for n in ACCESSORS]
    for i, a in enumerate(arenas):
        for j, b in enumerate(arenas):
            assert (a == b) == (i == j)
    assert len({hash(a) for a in arenas}) == len(arenas)
    assert (amr.The_Arena() == 3) is False


def test_arena_types_differ_between_dimensions():
    import boxfab.space1d as a1
    import boxfab.space3d as a3
    assert a1.Arena is not a3.Arena
    assert a1.The_Arena() != a3.The_Arena()
    with pytest.raises(TypeError, match="dimension"):
        a3.MFInfo().set_arena(a1.The_Arena())


@pytest.mark.parametrize("name", ACCESSORS)
def test_flags_are_host_memory_without_gpu(amr, name):
    a = getattr(amr, name)()
    for f in FLAGS:
        assert isinstance(getattr(a, f), bool)
    if not amr.Config.have_gpu:
        assert a.is_host_accessible and not a.is_device and not a.is_managed
        assert not a.is_pinned and not a.is_stream_ordered_arena
        assert a.has_free_device_memory(1 << 40) is True


def test_flags_are_read_only(amr):
    with pytest.raises(AttributeError):
        amr.The_Arena().is_device = True


def test_has_free_device_memory_checks_its_argument(amr):
    a = amr.The_Arena()
    assert a.has_free_device_memory(sz=0) is True
    with pytest.raises(ValueError, match=">= 0"):
        a.has_free_device_memory(-1)
    with pytest.raises(TypeError):
        a.has_free_device_memory("1")
    with pytest.raises(TypeError):
        a.has_free_device_memory()
    with pytest.raises(OverflowError):
        a.has_free_device_memory(1 << 70)


def test_arena_cannot_be_instantiated(amr):
    with pytest.raises(TypeError):
        amr.Arena()


def test_statics(amr, capsys):
    assert amr.Arena.initialize() is None
    assert amr.Arena.print_usage() is None
    out = capsys.readouterr().out
    assert "arena" in out and "in use" in out
    assert isinstance(amr.Arena.usage(), str)
    # finalize only gives cached blocks back: arenas stay usable afterwards
    assert amr.Arena.finalize() is None
    f = amr.FArrayBox(amr.Box([0] * amr.Config.spacedim, [3] * amr.Config.spacedim), 1, amr.The_Arena())
    assert f.is_allocated()


def test_print_usage_to_files(amr, tmp_path):
    f = amr.FArrayBox(amr.Box([0] * amr.Config.spacedim, [7] * amr.Config.spacedim), 2, amr.The_Cpu_Arena())
    base = str(tmp_path / "usage")
    amr.Arena.print_usage_to_files(base, "hello from the test")
    amr.Arena.print_usage_to_files(filename=base, message="second")
    path = base + ".0"
    assert os.path.exists(path)
    text = open(path).read()
    assert "hello from the test" in text and "second" in text  # appended
    assert "The_Cpu_Arena" in text
    del f
    with pytest.raises(TypeError):
        amr.Arena.print_usage_to_files(base, 3)
    with pytest.raises(OSError):
        amr.Arena.print_usage_to_files(str(tmp_path / "no" / "such" / "dir"), "x")
