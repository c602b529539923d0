"""Where the C library of this boxfab installation is, for C and C++ programs.

    python -m boxfab --cflags        compiler flags: -I<include dir>
    python -m boxfab --libs          linker flags: -L<dir> -Wl,-rpath,<dir> -lboxfab
    python -m boxfab --includedir    the folder that holds boxfab/boxfab.h
    python -m boxfab --libdir        the folder that holds libboxfab.so
    python -m boxfab --cmake-dir     the folder of boxfabConfig.cmake (-Dboxfab_DIR=...)
    python -m boxfab --pkgconfig-dir the folder of boxfab.pc (PKG_CONFIG_PATH=...)

For example:

    cc $(python -m boxfab --cflags) prog.c $(python -m boxfab --libs) -o prog
    cmake -S . -B build -Dboxfab_DIR=$(python -m boxfab --cmake-dir)   # find_package(boxfab CONFIG REQUIRED)

`pip install .` puts the headers, libboxfab.so, the CMake package config and
boxfab.pc inside the installed package; the paths printed are those.  --libs
includes an rpath, so the program finds libboxfab.so when it runs.  Several
options print one line each, in the order given.
"""
import argparse
import os
import sys

import boxfab

_PKG = os.path.dirname(os.path.abspath(boxfab.__file__))

# option -> (what it is, its folder inside the package, a file that must be there)
_PATHS = {
    "includedir": ("the include folder", "include", "boxfab/boxfab.h"),
    "libdir": ("the folder of libboxfab.so", "", "libboxfab.so"),
    "cmake_dir": ("the CMake package config", "cmake", "boxfabConfig.cmake"),
    "pkgconfig_dir": ("boxfab.pc", "pkgconfig", "boxfab.pc"),
}


def _path(key):
    what, rel, probe = _PATHS[key]
    p = os.path.join(_PKG, rel) if rel else _PKG
    if not os.path.exists(os.path.join(p, probe)):
        raise SystemExit(
            f"python -m boxfab: {what} is not in {_PKG} ({probe} is missing): this boxfab is not an installed "
            "package (a source tree on PYTHONPATH?). `pip install .` (or scripts/run.sh) installs the C library, "
            "headers and CMake/pkg-config files inside the package.")
    return p


def _quote(p):
    return p if all(c.isalnum() or c in "/._+-=,:" for c in p) else "'" + p.replace("'", "'\\''") + "'"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m boxfab", description=__doc__.split("\n\n")[0],
                                 epilog="Without an option: a summary of this installation.")
    for opt, help_ in (("--cflags", "compiler flags (-I...)"), ("--libs", "linker flags (-L... -Wl,-rpath,... -lboxfab)"),
                       ("--includedir", "the include folder"), ("--libdir", "the folder of libboxfab.so"),
                       ("--cmake-dir", "the folder of boxfabConfig.cmake"),
                       ("--pkgconfig-dir", "the folder of boxfab.pc"), ("--version", "boxfab's version")):
        ap.add_argument(opt, dest="actions", action="append_const", const=opt.lstrip("-").replace("-", "_"),
                        help=help_)
    args = ap.parse_args(argv)
    if not args.actions:
        print(f"boxfab {boxfab.__version__} in {_PKG}")
        print(f"build: {boxfab.build_info()}")
        print("C and C++ programs: python -m boxfab --cflags / --libs / --cmake-dir / --pkgconfig-dir "
              "(python -m boxfab --help)")
        return 0
    for action in args.actions:
        if action == "version":
            print(boxfab.__version__)
        elif action == "cflags":
            print(f"-I{_quote(_path('includedir'))}")
        elif action == "libs":
            lib = _quote(_path("libdir"))
            print(f"-L{lib} -Wl,-rpath,{lib} -lboxfab")
        else:
            print(_path(action))
    return 0


if __name__ == "__main__":
    sys.exit(main())
