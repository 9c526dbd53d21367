"""The report of the vector paths the tests compared (tests/helpers/simd.py)."""
from helpers import simd


def pytest_terminal_summary(terminalreporter):
    if not simd.COMPARED:
        return
    write = terminalreporter.write_line
    write("SIMD variants of the compiled core on this processor:")
    for variant in simd.VARIANTS:
        if variant in simd.COMPARED:
            write(f"  {variant}: compared ({'; '.join(sorted(set(simd.COMPARED[variant])))})")
        elif simd.supports(simd.variant_target(variant)):
            write(f"  {variant}: this processor runs it, NOT compared in this session")
        else:
            write(f"  {variant}: this processor cannot run it")
