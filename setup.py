"""Build the Cython extensions of libsmo with optimisation and, where the compiler has
it, OpenMP (the kernel rows are computed in parallel over their entries).

Both stages run on every core: Cython translates the modules in a pool of processes
(LIBSMO_BUILD_JOBS, default the cores this process may use) and build_ext compiles the
extensions in as many threads (its own -j wins where given). `pip install -v .` shows the
two stages' progress line by line.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# paths below libsmo/, without .pyx: the compiled core, in the order its modules cimport
# each other, then the io layer's text parser and writer
CORE = ["checks", "arrays", "bitmaps", "int_rows", "sparse_dots", "rows", "kernel", "kernel_blocks",
        "cache", "qmatrix", "stopping",
        "solution", "thread_governor", "smo", "platt_smo", "linear_smo", "linear_rows",
        "linear_solution", "linear_cd", "linear_newton", "linear_cs", "linear_l1",
        "linear_oneclass", "blas_dots",
        "pair_votes"]
EXTENSIONS = [f"_core/{name}" for name in CORE] + ["io/_svmlight", "io/_writer"]


def _build_jobs():
    """Processes for Cython and threads for the C compiler: LIBSMO_BUILD_JOBS, else the
    cores this process may use."""
    if os.environ.get("LIBSMO_BUILD_JOBS"):
        return max(1, int(os.environ["LIBSMO_BUILD_JOBS"]))
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _compiler_has_openmp(compiler_cmd):
    """Compile and link a tiny OpenMP program; True when the compiler accepts -fopenmp."""
    if os.environ.get("LIBSMO_NO_OPENMP"):
        return False
    source = "#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n"
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write(source)
        result = subprocess.run(
            list(compiler_cmd) + ["-fopenmp", src, "-o", os.path.join(tmp, "t")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        return result.returncode == 0
    except OSError:
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class BuildExt(build_ext):
    """build_ext that compiles the extensions in parallel and adds -O3 and the OpenMP
    flags the compiler actually supports."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:       # pip gives no -j: one extension a core
            self.parallel = _build_jobs()

    def build_extensions(self):
        compiler_cmd = getattr(self.compiler, "compiler_so", None) or ["cc"]
        use_openmp = sys.platform != "win32" and _compiler_has_openmp(compiler_cmd[:1])
        for ext in self.extensions:
            if self.compiler.compiler_type == "msvc":
                ext.extra_compile_args += ["/O2"]
                continue
            # no fused multiply-adds: the solver's arithmetic rounds as LIBSVM's does,
            # so that both take the same steps
            ext.extra_compile_args += ["-O3", "-fno-math-errno", "-ffp-contract=off"]
            if use_openmp:
                ext.extra_compile_args.append("-fopenmp")
                ext.extra_link_args.append("-fopenmp")
        super().build_extensions()


extensions = [
    Extension(
        "libsmo." + path.replace("/", "."),
        [f"src/libsmo/{path}.pyx"],
        depends=["src/libsmo/_core/inner_loops.h", "src/libsmo/_core/rbf_loops.h",
                 "src/libsmo/_core/step_loops.h",
                 "src/libsmo/_core/bit_counts.h", "src/libsmo/_core/column_loops.h",
                 "src/libsmo/_core/int_dots.h", "src/libsmo/_core/openmp_threads.h",
                  "src/libsmo/_core/thread_governor.h", "src/libsmo/_core/mt19937.h",
                  "src/libsmo/_core/row_ranks.h"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for path in EXTENSIONS
] + [
    # Cython's utility code (memoryviews, ...) compiled once for all the modules instead
    # of into each of them: half the C to compile (setup's CPU time 81 s against 174 s)
    Extension("libsmo._core._cyutility", ["src/libsmo/_core/_cyutility.c"],
              include_dirs=[numpy.get_include()]),
]

# Cython's pool of processes: where it spawns them (macOS, Windows) each child imports
# the __main__ module again, so setup() runs only in the process that was started
if __name__ == "__main__":
    setup(
        ext_modules=cythonize(
            extensions,
            nthreads=_build_jobs(),
            shared_utility_qualified_name="libsmo._core._cyutility",
            compiler_directives={
                "language_level": 3,
                "boundscheck": False,
                "wraparound": False,
                "cdivision": True,
                "initializedcheck": False,
            },
        ),
        cmdclass={"build_ext": BuildExt},
    )
