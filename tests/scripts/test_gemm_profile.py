"""The stock-kernel profile script: its parsing, its table, and its refusals, without running perf."""

import pytest

from specviz.scripts import gemm_profile
from specviz.scripts.gemm_profile import Profile, mkl_shares, table

REPORT = """# Samples: 12K of event 'cpu-clock'
#
    55.31%  [.] mkl_blas_def_sgemm_scopy_right16_bdz
    15.10%  [.] mkl_blas_def_sgemm_kernel_0_zen
     6.44%  [.] gc_collect_main
     0.07%  [.] mkl_blas_def_sgemm_scopy_right4_bdz
"""


def test_the_copy_share_counts_every_copy_routine_against_all_of_mkl():
    shares = mkl_shares(REPORT)
    assert set(shares) == {"mkl_blas_def_sgemm_scopy_right16_bdz", "mkl_blas_def_sgemm_kernel_0_zen",
                           "mkl_blas_def_sgemm_scopy_right4_bdz"}
    profile = Profile(5, 22.6, shares)
    assert profile.copy_share == pytest.approx((55.31 + 0.07) / (55.31 + 15.10 + 0.07))


def test_a_row_count_where_mkl_never_copies_reads_zero_and_names_its_routine():
    text = table([Profile(1, 16.8, mkl_shares("    52.78%  [.] mkl_blas_def_xsgemv\n")), Profile(2, 1.0, {})])
    rows = text.splitlines()[2:]
    assert rows[0] == "| 1 | 16.8 | `mkl_blas_def_xsgemv` 53% | 0% |"
    assert rows[1] == "| 2 | 1.0 | none | 0% |"


def test_without_perf_it_says_so_in_one_sentence(monkeypatch, capsys):
    monkeypatch.setattr(gemm_profile.shutil, "which", lambda name: None)
    assert gemm_profile.main(["--rows", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "This needs Linux perf (the `perf` command), which this machine does not have."


@pytest.mark.parametrize("flags", [["--rows", "0"], ["--rows", "5", "x"], ["--calls", "0"], ["--threads", "-1"]])
def test_a_flag_out_of_range_is_one_argparse_line(flags, capsys):
    with pytest.raises(SystemExit) as stop:
        gemm_profile.main(flags)
    assert stop.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_docstring_gives_the_profiles_finding_as_the_docs_quote_it():
    """Review of the 43rd read: the docstring said docs/benchmarks.md puts the stock kernels' slowness "over a few rows"
    on MKL copying the weight on every call, the claim before the profile; the committed profile found the copy from
    5 rows on only (2 rows take sgemm_pst, with no copy), and that is what benchmarks.md now says."""
    doc = " ".join(gemm_profile.__doc__.split())
    assert "are slow over a few rows because MKL's sgemm copies the weight" not in doc
    # read 44: the profile names a routine that copies "a matrix"; that it is the weight is inferred
    assert ("from 5 rows on, about half of MKL's samples or more are in a routine that copies a matrix (by how its "
            "share falls with the rows, the weight)") in doc
    assert "2 rows take another MKL path with no copy" in doc
