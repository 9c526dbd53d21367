"""Dense and CSR input as the core reads it, and LIBSVM's kernels in numpy, for the tests
of the layers."""
import numpy as np
import scipy.sparse as sp

LAYOUTS = ("dense", "csr")


def in_layout(D, layout):
    """The dense array D as the core reads it: validated C-contiguous float64
    ("dense") or canonical CSR with int32 indices ("csr")."""
    from libsmo._utils.validation import check_data
    return check_data(np.asarray(D, dtype=np.float64) if layout == "dense"
                      else sp.csr_matrix(D))


def kernel_reference(U, V, kernel, gamma, degree, coef0):
    """K(u, v) for every row u of U and v of V, straight from LIBSVM's definitions, on
    dense float64 arrays (no squared-norm expansion for the RBF kernel)."""
    U = np.asarray(U, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if kernel == "rbf":
        diff = U[:, None, :] - V[None, :, :]
        return np.exp(-gamma * np.einsum("ijk,ijk->ij", diff, diff))
    dots = np.einsum("ik,jk->ij", U, V)
    if kernel == "linear":
        return dots
    if kernel == "poly":
        return (gamma * dots + coef0) ** degree
    if kernel == "sigmoid":
        return np.tanh(gamma * dots + coef0)
    raise AssertionError(kernel)
