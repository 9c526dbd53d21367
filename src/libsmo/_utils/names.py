"""The names libsmo shares with LIBSVM, in one place: formulations, kernels, limits.

Every layer that checks or writes these names (validation, training, the model files,
the commands) imports them from here, so that they cannot drift apart.
"""

# LIBSVM's formulations, in the order of its svm_type codes (C_SVC = 0 ... NU_SVR = 4)
SVM_TYPES = ("c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr")
# the formulations that predict class labels (one-vs-one over nr_class classes)
CLASSIFICATION_TYPES = ("c_svc", "nu_svc")
# the formulations that predict real values
REGRESSION_TYPES = ("epsilon_svr", "nu_svr")
# the kernels, in the order of LIBSVM's kernel_type codes (LINEAR = 0 ... PRECOMPUTED = 4)
KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# libsmo's kernel name -> the word LIBSVM's model files use for it (kernel_type)
LIBSVM_KERNEL_NAMES = {"linear": "linear", "poly": "polynomial", "rbf": "rbf",
                       "sigmoid": "sigmoid", "precomputed": "precomputed"}
# LIBSVM's INT_MAX: its indices, counts and labels are C ints
INT_MAX = 2**31 - 1

# whose LIBSVM a fit or a prediction reproduces bit for bit where the two differ:
# LIBSVM 3.37's own (svm-train, libsmo.train) or the copy inside scikit-learn (libsmo's
# estimators)
FLAVORS = ("libsvm", "sklearn")
