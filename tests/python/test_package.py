import boxfab
import boxfab.space1d
import boxfab.space2d
import boxfab.space3d


def test_build_info_reports_features():
    info = boxfab.build_info()
    assert info["version"] == boxfab.__version__
    for key in ("cuda", "mpi", "openmp"):
        assert isinstance(info[key], bool)


def test_space_modules_have_versions(amr):
    assert amr.__version__ == boxfab.__version__
    assert isinstance(amr.__author__, str) and isinstance(amr.__license__, str)


def test_dim3_is_three_ints_in_every_space(amr):
    d = amr.Dim3(1, 2, 3)
    assert (d.x, d.y, d.z) == (1, 2, 3)
    d.z = -4
    assert d.z == -4 and "Dim3" in repr(d)
    x = amr.XDim3(0.5, 1, 2)
    assert (x.x, x.y, x.z) == (0.5, 1.0, 2.0)
