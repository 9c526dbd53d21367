"""The one registry of LIBSVM's names that every layer shares."""

# LIBSVM's formulations, in the order of svm-train's -s 0..4
SVM_TYPES = ("c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr")
# the formulations whose labels are classes (one-vs-one over pairs)
CLASSIFICATION_TYPES = ("c_svc", "nu_svc")
# the formulations whose targets are real numbers
REGRESSION_TYPES = ("epsilon_svr", "nu_svr")
# LIBSVM's kernels, in the order of svm-train's -t 0..4
KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# libsmo's kernel name -> the word LIBSVM's model files use
LIBSVM_KERNEL_NAMES = {"linear": "linear", "poly": "polynomial", "rbf": "rbf",
                       "sigmoid": "sigmoid", "precomputed": "precomputed"}
# LIBSVM's feature indices, counts and labels in files are C ints
INT_MAX = 2**31 - 1
